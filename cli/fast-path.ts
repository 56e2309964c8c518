// Commands that hooks, tab rows and jobs call many times a minute start without commander: their
// flags are parsed with node:util's parseArgs, strictly. `exec`, which every job starts twice (the
// pane's wrapper and its supervisor), takes the fast path in its two forms, `exec ID` (what a launch
// runs) and `exec ID -- CMD...`. `host VERB ARGS...`, which peers run through SSH, always does: every
// word after `host` is data. `hook inbox|context|gate`, which harnesses run on every prompt and
// stop, takes it with its subcommand; `run` takes it when its command follows `--`, and `place`.
// The hot ones (HOT_COMMANDS) are built as bundles of their own, one file each (dist/hot/NAME.cjs,
// cli/hot/): Node loads one module instead of the forty a command's chunks make. `items`, `ps` and
// `board`, which widgets and agents poll, are not hot: their `--json` forms try a lean bundle first
// (READ_LEAN) and every form goes to the full command line otherwise.
// Anything unusual (help, an unknown or malformed flag) falls through to the full command line,
// which reports it the usual way.

import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SUPERVISOR_ENV } from '../service/core/jobs/job-env.js';

interface FastCommand {
  options: NonNullable<ParseArgsConfig['options']>;
  /** Parses argv itself (positionals); undefined sends it to the full command line. */
  parse?: (rest: string[]) => Record<string, unknown> | undefined;
}

const GLOBAL_OPTIONS = { config: { type: 'string' } } as const;

/** Must match the `hook` subcommands and their flags in cli/program.ts. */
const HOOK_OPTIONS: Record<string, NonNullable<ParseArgsConfig['options']>> = {
  inbox: { harness: { type: 'string' }, event: { type: 'string' } },
  context: { harness: { type: 'string' }, event: { type: 'string' } },
  gate: {},
  state: { harness: { type: 'string' }, event: { type: 'string' } },
};

/**
 * A hook's flags. A flag its harness registered wrongly is still a hook run: `usage` carries the
 * mistake to the hook, which logs it and exits 0 silently (spec: hook failures print nothing).
 */
function parseHook(rest: string[]): Record<string, unknown> | undefined {
  const [sub, ...args] = rest;
  const options = sub === undefined ? undefined : HOOK_OPTIONS[sub];
  if (sub === undefined || options === undefined) return undefined;
  const all = { ...GLOBAL_OPTIONS, ...options };
  const plain = plainFlags(args, all);
  if (plain !== undefined) return { ...plain, sub };
  try {
    const { values } = parseArgs({ args, options: all, strict: true });
    return { ...values, sub };
  } catch (error) {
    return { sub, usage: (error as Error).message };
  }
}

/**
 * Flags in their common spelling, read without parseArgs, whose module is a cost of every hot
 * command's start-up: each a known `--name` at most once, a boolean alone, a string as `--name
 * value` or `--name=value` with a value that does not start with `-`. Anything else (a short flag,
 * a positional, `--`, a repeat, an unknown flag) is undefined, and parseArgs judges it as ever.
 */
export function plainFlags(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): Record<string, string | boolean> | undefined {
  const values: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--') || arg === '--') return undefined;
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (option === undefined || option.multiple || Object.hasOwn(values, name)) return undefined;
    if (option.type === 'boolean') {
      if (equals !== -1) return undefined;
      values[name] = true;
      continue;
    }
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    values[name] = value;
  }
  return values;
}

/** Must accept exactly the flags that cli/program.ts declares for the same command. */
const FAST_COMMANDS: Record<string, FastCommand> = {
  // Run from the split chunks (full.ts); every other fast command is hot.
  host: {
    options: {},
    parse: (rest) => ({ words: rest }),
  },
  status: {
    options: {
      json: { type: 'boolean' },
      line: { type: 'boolean' },
      brief: { type: 'boolean' },
      watch: { type: 'boolean' },
      interval: { type: 'string' },
    },
  },
  // The board's app, which a person opens and waits for.
  sidebar: {
    options: { owner: { type: 'string' } },
  },
  // The live page, which a person opens and waits for (its first page is budgeted).
  dash: {
    options: { port: { type: 'string' } },
  },
  // The MCP server a harness starts for each session and waits for (its SDK bundled with it).
  mcp: {
    options: {},
  },
  exec: {
    options: {},
    parse: (rest) => {
      const [id, separator, ...command] = rest;
      if (id === undefined || id.startsWith('-')) return undefined;
      if (separator === undefined) return { id };
      if (separator !== '--' || command.length === 0) return undefined;
      return { id, command };
    },
  },
  hook: {
    options: {},
    parse: parseHook,
  },
  run: {
    options: {
      wait: { type: 'boolean' },
      host: { type: 'string' },
      cwd: { type: 'string' },
      timeout: { type: 'string' },
      'idle-timeout': { type: 'string' },
      max: { type: 'string' },
      json: { type: 'boolean' },
      branch: { type: 'string' },
      base: { type: 'string' },
    },
    parse: parseRun,
  },
  // `send TARGET` and its flags in their common spelling (plainFlags): from the lean bundle when it
  // answers, else the full command line.
  send: {
    options: {
      host: { type: 'string' },
      kind: { type: 'string' },
      message: { type: 'string' },
      'message-file': { type: 'string' },
    },
    parse: (rest) => {
      const [target, ...args] = rest;
      if (target === undefined || target.startsWith('-')) return undefined;
      const flags = plainFlags(args, { ...GLOBAL_OPTIONS, ...(FAST_COMMANDS.send?.options ?? {}) });
      return flags === undefined ? undefined : { ...camelFlags(flags), target };
    },
  },
  place: {
    options: {
      json: { type: 'boolean' },
      host: { type: 'string' },
      wait: { type: 'boolean' },
      max: { type: 'string' },
      branch: { type: 'string' },
      base: { type: 'string' },
      repo: { type: 'string' },
    },
  },
  // Cleanup surveys: their own bundles spare them the full command line's chunks. `--host` names a
  // peer and takes the full command line, which carries the transports.
  doctor: {
    options: { json: { type: 'boolean' }, host: { type: 'string' } },
    parse: (rest) => {
      const flags = localFlags(strictFlags(rest, FAST_COMMANDS.doctor?.options ?? {}));
      return flags && { ...flags, verb: 'doctor' };
    },
  },
  prune: {
    options: { yes: { type: 'boolean' }, json: { type: 'boolean' }, host: { type: 'string' } },
    parse: parsePrune,
  },
  // Not hot: their --json forms go to a lean bundle first (READ_LEAN), the rest to the full line.
  items: {
    options: { owner: { type: 'string' }, json: { type: 'boolean' } },
  },
  ps: {
    options: { all: { type: 'boolean' }, json: { type: 'boolean' } },
  },
  board: {
    options: {
      json: { type: 'boolean' },
      owner: { type: 'string' },
      open: { type: 'boolean' },
      toggle: { type: 'boolean' },
      dismiss: { type: 'string' },
    },
  },
};

/** Built as bundles of their own (scripts/build.mjs, cli/hot/NAME.ts). */
export const HOT_COMMANDS: ReadonlySet<string> = new Set([
  'status',
  'exec',
  'hook',
  'run',
  'place',
  'sidebar',
  'dash',
  'mcp',
  'doctor',
  'prune',
]);

/** Hot commands that share a bundle (and its code cache), by command: cli/hot/cleanup.ts. */
const SHARED_BUNDLES: Record<string, string> = { doctor: 'cleanup', prune: 'cleanup' };

/**
 * The bundle a hot command runs from (dist/hot/NAME.cjs). `exec` in a job pane (without
 * DOGSLED_EXEC_SUPERVISOR) is the wrapper alone, which carries none of the supervisor's code.
 */
export function hotBundle(name: string, env: NodeJS.ProcessEnv = {}): string {
  if (name === 'exec' && env[SUPERVISOR_ENV] !== '1') return 'exec-pane';
  return Object.hasOwn(SHARED_BUNDLES, name) ? (SHARED_BUNDLES[name] as string) : name;
}

/** Built beside the hot bundles (cli/hot/NAME.ts): each answers its command's common case first. */
export const LEAN_BUNDLES: readonly string[] = [
  'status-lean',
  'status-json-lean',
  'hook-lean',
  'hook-context-lean',
  'place-lean',
  'items-lean',
  'ps-lean',
  'board-lean',
  'send-lean',
  'host-lean',
];

/**
 * Commands that are not hot but whose `--json` form a lean bundle answers first (cli/hot/NAME-lean.ts),
 * with the flags besides --json it takes; anything it leaves goes to the full command line.
 */
const READ_LEAN: Record<string, readonly string[]> = {
  items: ['owner'],
  ps: ['all'],
  board: ['owner'],
};

/** A lean bundle to run, and the name its code cache is kept under. */
export interface LeanRun {
  bundle: string;
  /**
   * One bundle serves several paths (the four hooks, the line and the brief): each keeps a cache of
   * its own, so the code its path compiles is in the cache it reads, whichever path wrote first.
   */
  cache: string;
}

/**
 * The lean bundle that answers a command's common case first (cli/hot/status-lean.ts,
 * hook-lean.ts, place-lean.ts, host-lean.ts, and READ_LEAN's), or undefined. Only the forms it can answer load it: any other costs a second
 * bundle for nothing.
 */
export function leanBundle(fast: { name: string; flags: Record<string, unknown> }): LeanRun | undefined {
  const takes = Object.hasOwn(READ_LEAN, fast.name) ? READ_LEAN[fast.name] : undefined;
  if (takes !== undefined) {
    const { config: _config, json, ...others } = fast.flags;
    if (json !== true || Object.keys(others).some((flag) => !takes.includes(flag))) return undefined;
    return { bundle: `${fast.name}-lean`, cache: `${fast.name}-lean` };
  }
  if (fast.name === 'hook') {
    const { sub, event, usage } = fast.flags;
    if (usage !== undefined || typeof sub !== 'string' || !Object.hasOwn(HOOK_OPTIONS, sub)) return undefined;
    // `sub` is one of the hook names: safe in a file name, as is the event's kind.
    const variant = sub === 'inbox' ? `inbox-${event === 'Stop' ? 'stop' : 'prompt'}` : sub;
    // The prompt context reads the host policy and renders; the others write a cleanup request at
    // most: each carries only its own code (cli/hook-lean-run.ts says why).
    return { bundle: sub === 'context' ? 'hook-context-lean' : 'hook-lean', cache: `hook-lean-${variant}` };
  }
  if (fast.name === 'send') {
    const { config: _config, target: _target, message, kind: _kind, ...others } = fast.flags;
    return message !== undefined && Object.keys(others).length === 0
      ? { bundle: 'send-lean', cache: 'send-lean' }
      : undefined;
  }
  // `host snapshot`, every peer read of a caller without a service: the one verb it answers.
  if (fast.name === 'host') {
    const { words } = fast.flags;
    return Array.isArray(words) && words.length === 1 && words[0] === 'snapshot'
      ? { bundle: 'host-lean', cache: 'host-lean-snapshot' }
      : undefined;
  }
  if (fast.name === 'place') {
    const { config: _config, json: _json, ...others } = fast.flags;
    return Object.keys(others).length === 0 ? { bundle: 'place-lean', cache: 'place-lean' } : undefined;
  }
  const { config: _config, line, brief, json, ...others } = fast.flags;
  if (fast.name !== 'status' || Object.keys(others).length > 0) return undefined;
  // `--json` alone: the whole report (cli/hot/status-json-lean.ts), a bundle of its own.
  if (json === true)
    return line === undefined && brief === undefined
      ? { bundle: 'status-json-lean', cache: 'status-json-lean' }
      : undefined;
  if ((line === true) === (brief === true)) return undefined;
  return { bundle: 'status-lean', cache: `status-lean-${line === true ? 'line' : 'brief'}` };
}

/**
 * `run [flags] -- CMD...`: the flags before the first `--`, the command after it. Without `--` (or
 * with no command) the full command line decides what the words mean.
 */
function parseRun(rest: string[]): Record<string, unknown> | undefined {
  const separator = rest.indexOf('--');
  if (separator === -1 || separator === rest.length - 1) return undefined;
  const flags = strictFlags(rest.slice(0, separator), FAST_COMMANDS.run?.options ?? {});
  return flags === undefined ? undefined : { ...flags, command: rest.slice(separator + 1) };
}

/** A cleanup's flags without --host (undefined, so the full command line reaches the peer). */
function localFlags(flags: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return flags === undefined || flags.host !== undefined ? undefined : flags;
}

/**
 * `prune [flags] [category ...]`: the words are its categories (prune-action.ts judges them), the
 * flags anywhere among them, as commander takes them; `--` or anything unusual goes to the full line.
 */
function parsePrune(rest: string[]): Record<string, unknown> | undefined {
  if (rest.some((arg) => arg === '--' || arg === '--host' || arg.startsWith('--host='))) return undefined;
  const words = rest.filter((arg) => !arg.startsWith('-'));
  const flags = localFlags(
    strictFlags(
      rest.filter((arg) => arg.startsWith('-')),
      FAST_COMMANDS.prune?.options ?? {},
    ),
  );
  return flags === undefined ? undefined : { ...flags, words, verb: 'prune' };
}

/** parseArgs, strictly, without positionals, with the flags named as commander names them. */
function strictFlags(
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
): Record<string, unknown> | undefined {
  const all = { ...GLOBAL_OPTIONS, ...options };
  let values: Record<string, unknown> | undefined = plainFlags(args, all);
  try {
    values ??= parseArgs({ args, options: all, strict: true, allowPositionals: false }).values;
  } catch {
    return undefined;
  }
  return camelFlags(values);
}

function camelFlags(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [camel(key), value]));
}

/** `idle-timeout` → `idleTimeout`, as commander names an option's value. */
function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The flags each fast command accepts, by name, so a test can hold them to cli/program.ts. */
export function fastFlags(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(FAST_COMMANDS).map(([name, command]) => [name, Object.keys(command.options).map(camel)]),
  );
}

/** The flags of a fast command, or undefined when the full command line must handle argv. */
export function parseFast(args: string[]): { name: string; flags: Record<string, unknown> } | undefined {
  const [name, ...rest] = args;
  const command = name === undefined ? undefined : FAST_COMMANDS[name];
  if (!command || name === undefined) return undefined;
  if (command.parse) {
    const flags = command.parse(rest);
    return flags === undefined ? undefined : { name, flags };
  }
  const flags = strictFlags(rest, command.options);
  return flags === undefined ? undefined : { name, flags };
}
