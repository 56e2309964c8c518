// Types for the tests that run the import rules in their own process (rules.mjs is plain ESM).
/** Every violation of the import rules under `root`, one line each; none when the tree keeps them. */
export function importProblems(root: string): Promise<string[]>;
