// What a harness hook is given: the harnesses and events each hook accepts, and the JSON object its
// harness sends on stdin. Pure, so the full hook and the lean one (cli/hot/hook-lean.ts) read the
// same words the same way.

export const HOOK_HARNESSES = ['claude', 'codex', 'pi'] as const;
export type HookHarness = (typeof HOOK_HARNESSES)[number];
export const INBOX_HOOK_EVENTS = ['Stop', 'UserPromptSubmit'] as const;
export type InboxHookEvent = (typeof INBOX_HOOK_EVENTS)[number];
export const CONTEXT_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit'] as const;
/** Events only `hook state` takes: they say what the agent is doing and ask for nothing. */
export const STATE_HOOK_EVENTS = ['Notification'] as const;

/** The JSON object a harness sent on stdin, or undefined while it is not one (yet). */
export function hookInput(stdin: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(stdin) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
