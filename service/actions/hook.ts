// `hook inbox|context|gate|state`, what Claude Code, Codex and Pi run on their own events: the
// harness's flags and stdin checked, and each hook's work (service/inbox/hook-*.ts). Each hook loads
// only its own code, on first use: hooks run on every prompt and stop, from a hot bundle of their
// own, and a module loaded at the top would be parsed on every call.

import type { HookHarness, InboxHookEvent } from '../core/inbox/hook-input.js';
import type { HookContext } from '../inbox/hook-context.js';
import type { InboxHookInput } from '../inbox/hook-inbox.js';
import type { HostIO, ProcessIO } from '../state/io.js';
import { mark } from '../time/timing.js';

export {
  CONTEXT_HOOK_EVENTS,
  HOOK_HARNESSES,
  hookInput,
  INBOX_HOOK_EVENTS,
  STATE_HOOK_EVENTS,
} from '../core/inbox/hook-input.js';
// The hooks' stdin, a pipe or a socket, read in the event loop (cli/hook-stdin.ts).
export { readFdChunks } from '../process/pipe-handle.js';
export type { HookContext, HookHarness, InboxHookEvent, InboxHookInput };

/** In tmux the hooks are the only source of the agent's state: its harness's event, recorded. */
export async function hookState(
  env: NodeJS.ProcessEnv,
  stateDir: string,
  event: { harness: string; event: string; stdin: string; nowMs: number },
): Promise<void> {
  const { reportHookState } = await import('../inbox/hook-state.js');
  await reportHookState(env, stateDir, event.harness, event.event, event.stdin, event.nowMs);
}

/** The Stop gate's reminder of unfinished children, or undefined when there is none. */
export async function hookGate(io: ProcessIO): Promise<string | undefined> {
  const { gateHook } = await import('../inbox/hook-inbox.js');
  return gateHook(io);
}

/** What the agent should know of its place (owner, children, inbox), or undefined for nothing new. */
export async function hookContext(
  io: HostIO,
  harness: HookHarness,
  event: string,
): Promise<HookContext | undefined> {
  const { contextHook } = await import('../inbox/hook-context.js');
  return contextHook(io, harness, event);
}

/** The inbox's new records, printed through `print` and acknowledged once it resolved. */
export async function hookInbox(
  io: ProcessIO,
  hook: { harness: HookHarness; event: InboxHookEvent; input: InboxHookInput },
  print: (text: string) => Promise<void>,
): Promise<void> {
  const { inboxHook } = await import('../inbox/hook-inbox.js');
  mark('inbox loaded');
  await inboxHook(io, hook.harness, hook.event, hook.input, print);
}

/** One line in the state dir's hooks.log: a hook registered wrongly fails silently but not unseen. */
export async function hookProblem(stateDir: string, what: string, nowMs: number): Promise<void> {
  const { logHookProblem } = await import('../inbox/hook-log.js');
  await logHookProblem(stateDir, what, nowMs);
}
