// The placeholders of dogsled.toml's setup and teardown commands: {main}, {path} and {branch}, each
// replaced by one shell word. The spec makes every other brace an error ("the command text cannot
// use braces for anything else"), so a lone `{` or `}` is refused too, not passed to the shell:
// `${HOME}`, `a{b,c}` and `awk '{print}'` are all errors, found when the file is loaded.

import { shellWord } from '../common/shell-quote.js';

export interface TemplateValues {
  /** The main checkout. */
  main: string;
  /** The worktree the command runs in. */
  path: string;
  /** Its branch; empty for a detached worktree. */
  branch: string;
}

export type ExpandResult = { ok: true; command: string } | { ok: false; error: string };

const NAMES = new Set<string>(['main', 'path', 'branch']);
const BRACED = /\{([^{}]*)\}|[{}]/g;

/**
 * Why `template` is not a valid command, or null when it is. The message names the offending
 * placeholder or brace and quotes the command.
 */
export function templateProblem(template: string): string | null {
  for (const match of template.matchAll(BRACED)) {
    const name = match[1];
    if (name === undefined) return `unmatched "${match[0]}" in command: ${template}`;
    if (!NAMES.has(name)) {
      return `unknown placeholder {${name}} in command: ${template} (only {main}, {path} and {branch} exist)`;
    }
  }
  return null;
}

/** `template` with each placeholder replaced by its value as one shell word. */
export function expandCommand(template: string, values: TemplateValues): ExpandResult {
  const problem = templateProblem(template);
  if (problem !== null) return { ok: false, error: problem };
  const command = template.replace(BRACED, (_whole, name: keyof TemplateValues) => shellWord(values[name]));
  return { ok: true, command };
}
