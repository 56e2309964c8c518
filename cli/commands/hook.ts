// `dogsled hook inbox|context|gate|state`: what Claude Code, Codex and Pi run on their own events. The
// JSON their harness sends arrives on stdin (the only command that reads stdin unasked). A hook
// never loops and never breaks its harness: it prints only when it has something new, acknowledges
// exactly what it printed, and on any failure (no state dir, a corrupt inbox, no Herdr, its
// five-second budget spent) exits 0 with no output at all. A flag registered wrongly (an unknown
// --harness or --event, an unknown flag) is a failure like any: one line in the state dir's
// hooks.log, exit 0, nothing printed. The hooks' work is service/actions/hook.ts.

import {
  CONTEXT_HOOK_EVENTS,
  HOOK_HARNESSES,
  hookContext,
  hookGate,
  hookInbox,
  hookInput,
  hookProblem,
  hookState,
  INBOX_HOOK_EVENTS,
  STATE_HOOK_EVENTS,
} from '../../service/actions/hook.js';
import { mark } from '../../service/actions/timing-marks.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { clip, plainLine } from '../../service/core/text/clean.js';
import type { CliContext } from '../context.js';
import { writeAll } from '../stdout.js';

export const HOOK_SUBCOMMANDS = ['inbox', 'context', 'gate', 'state'] as const;
export type HookSubcommand = (typeof HOOK_SUBCOMMANDS)[number];

/** The harnesses kill a hook after five seconds; this one gives up silently a little before. */
const HOOK_BUDGET_MS = 4_500;
/** The harness's JSON is small; anything past this is not read (nothing here needs it whole). */
const STDIN_MAX_BYTES = 1024 * 1024;
/**
 * Once stdin holds a whole JSON object, reading stops after this long with nothing more: a harness
 * that never closes stdin must not cost a hook its budget.
 */
const STDIN_IDLE_MS = 20;

export interface HookFlags {
  sub: HookSubcommand;
  harness?: string;
  event?: string;
  /** A flag the fast path could not parse (cli/fast-path.ts): the hook only logs it. */
  usage?: string;
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  command: string,
): T {
  if (value !== undefined && (allowed as readonly string[]).includes(value)) return value as T;
  const got = value === undefined ? 'nothing' : `"${clip(plainLine(value), 40)}"`;
  throw new DogsledError(`${command}: ${flag} must be ${allowed.join(' or ')}, got ${got}`);
}

/** Validated flags; a mistake throws the one line hooks.log gets. */
function checked(flags: HookFlags) {
  if (flags.usage !== undefined) throw new DogsledError(`hook ${flags.sub}: ${plainLine(flags.usage)}`);
  if (flags.sub === 'inbox') {
    return {
      sub: 'inbox' as const,
      harness: oneOf('--harness', flags.harness, ['claude', 'codex'] as const, 'hook inbox'),
      event: oneOf('--event', flags.event, INBOX_HOOK_EVENTS, 'hook inbox'),
    };
  }
  if (flags.sub === 'context') {
    return {
      sub: 'context' as const,
      harness: oneOf('--harness', flags.harness, HOOK_HARNESSES, 'hook context'),
      event: oneOf('--event', flags.event ?? 'UserPromptSubmit', CONTEXT_HOOK_EVENTS, 'hook context'),
    };
  }
  if (flags.sub === 'state') {
    return {
      sub: 'state' as const,
      harness: oneOf('--harness', flags.harness, ['claude'] as const, 'hook state'),
      event: oneOf('--event', flags.event, STATE_HOOK_EVENTS, 'hook state'),
    };
  }
  return { sub: 'gate' as const };
}

/**
 * Reads the harness's JSON: to its end, or STDIN_IDLE_MS after it holds a whole object and nothing
 * more came (bounded); a terminal on stdin means nobody sends any.
 */
async function drainStdin(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) return '';
  return new Promise((resolve) => {
    let seen = 0;
    const kept: Buffer[] = [];
    let idle: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(idle);
      stdin.off('data', take).off('end', finish).off('error', finish);
      // Not waiting for an end that may never come; the harness wrote what it had.
      stdin.destroy();
      resolve(Buffer.concat(kept).toString('utf8'));
    };
    const take = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > STDIN_MAX_BYTES) return finish();
      kept.push(chunk);
      clearTimeout(idle);
      if (hookInput(Buffer.concat(kept).toString('utf8')) !== undefined)
        idle = setTimeout(finish, STDIN_IDLE_MS);
    };
    stdin.on('data', take).on('end', finish).on('error', finish);
  });
}

/** Resolves once every byte is handed to the OS, so an ack never precedes its output. */
async function print(text: string): Promise<void> {
  writeAll(text);
}

/** A hook prints nothing but its answer: warnings (a quarantined file) stay off every stream. */
function quiet(ctx: CliContext): CliContext {
  // Its descriptors, not its values: the context asks whether stdout is a terminal only when read.
  const descriptors = {
    ...Object.getOwnPropertyDescriptors(ctx),
    warn: { value: () => {}, enumerable: true },
  };
  return Object.defineProperties({}, descriptors) as CliContext;
}

/** Each path loads only its own code: hooks run on every prompt and stop. */
async function runHook(hook: ReturnType<typeof checked>, ctx: CliContext): Promise<void> {
  const io = quiet(ctx);
  const stdin = await drainStdin();
  mark('stdin');
  if (ctx.env.TMUX && hook.sub !== 'gate') {
    // In tmux the hooks are the only source of the agent's state (service/inbox/hook-state.ts).
    const event = { harness: hook.harness, event: hook.event, stdin, nowMs: ctx.now() };
    await hookState(ctx.env, ctx.stateDir, event).catch(() => {});
  }
  // `hook state` only reports (above); in a Herdr pane Herdr detects the state itself.
  if (hook.sub === 'state') return;
  if (hook.sub === 'gate') {
    const reminder = await hookGate(io);
    if (reminder !== undefined) await print(`${reminder}\n`);
    return;
  }
  const { additionalContext, stopBlock } = await import('../render/hook-output.js');
  if (hook.sub === 'context') {
    const [{ renderHookContext }, { hostIO }] = await Promise.all([
      import('../render/hook-context.js'),
      import('../io.js'),
    ]);
    const context = await hookContext(await hostIO(io), hook.harness, hook.event);
    if (context === undefined) return;
    const text = renderHookContext(context, ctx.now());
    await print(hook.harness === 'pi' ? `${text}\n` : additionalContext(hook.event, text));
    return;
  }
  const input = { stopHookActive: hookInput(stdin)?.stop_hook_active === true };
  await hookInbox(io, { harness: hook.harness, event: hook.event, input }, (text) =>
    print(hook.event === 'Stop' ? stopBlock(text) : additionalContext(hook.event, text)),
  );
  mark('inbox done');
}

export async function hookCommand(flags: HookFlags, ctx: CliContext): Promise<number> {
  let hook: ReturnType<typeof checked>;
  try {
    hook = checked(flags);
  } catch (error) {
    // Registered wrongly: the harness gets the silent success every hook failure gets.
    await hookProblem(ctx.stateDir, (error as Error).message, ctx.now());
    return 0;
  }
  // The edge of a hook: whatever hangs (a lock held by a frozen process, a FIFO where a state file
  // should be, a Herdr that never answers), the harness gets a silent success before it kills us.
  const budget = setTimeout(() => process.exit(0), HOOK_BUDGET_MS);
  budget.unref();
  try {
    await runHook(hook, ctx);
  } catch {
    // Hook failures are silent by design (spec: they exit successfully without output).
  } finally {
    clearTimeout(budget);
  }
  return 0;
}
