// The host-side verbs: what `dogsled host <verb> args…` runs on this host, for a peer that asked
// through the transport, and what each `dogsled host rpc` request dispatches to. One entry per verb;
// each takes its arguments as data (strings, never parsed by a shell) and returns a value that the
// one-shot form prints as JSON and the RPC channel sends as msgpack.

import { DogsledError } from '../core/common/errors.js';
import type { HostIO } from '../state/io.js';

/** This host's IO (its config read fresh for each call), and the caller's input. */
export interface VerbIO extends HostIO {
  /** The caller's input bytes (stdin of the one-shot form); empty when none was sent. */
  input: Buffer;
}

export interface VerbResult {
  value: unknown;
  /** What the one-shot form exits with (0 unless the verb says otherwise, as `wait` will). */
  exitCode?: number;
}

export interface HostVerb {
  summary: string;
  /** Reads stdin in the one-shot form; other verbs never touch it. */
  takesInput: boolean;
  load: () => Promise<(args: readonly string[], io: VerbIO) => Promise<VerbResult>>;
}

export const HOST_VERBS: Readonly<Record<string, HostVerb>> = {
  snapshot: {
    summary: "this host's snapshot, service liveness and reservations",
    takesInput: false,
    load: async () => (await import('./snapshot-verb.js')).snapshotVerb,
  },
  facts: {
    summary: 'what this host is: OS, kernel, CPU, memory and GPUs (systeminformation)',
    takesInput: false,
    load: async () => (await import('./facts-verb.js')).factsVerb,
  },
  todos: {
    summary: "the todos of this host's live agent panes (todo-sections.json)",
    takesInput: false,
    load: async () => (await import('./todos-verb.js')).todosVerb,
  },
  echo: {
    summary: 'its arguments and input back, with the host name and version: a transport check',
    takesInput: true,
    load: async () => (await import('./echo-verb.js')).echoVerb,
  },
  'quota-store': {
    summary: "store a collector's quota snapshot from stdin (newer wins)",
    takesInput: true,
    load: async () => (await import('./quota-store-verb.js')).quotaStoreVerb,
  },
  reserve: {
    summary: "a reservation here, after this host's own recheck under its placements lock",
    takesInput: false,
    load: async () => (await import('./job-verbs.js')).reserveVerb,
  },
  launch: {
    summary: 'launches a placed job here from the JSON request on stdin',
    takesInput: true,
    load: async () => (await import('./job-verbs.js')).launchVerb,
  },
  job: {
    summary: "a job's record",
    takesInput: false,
    load: async () => (await import('./job-verbs.js')).jobVerb,
  },
  logs: {
    summary: "a job's output from an offset",
    takesInput: false,
    load: async () => (await import('./job-verbs.js')).logsVerb,
  },
  stop: {
    summary: 'stops a job that runs here',
    takesInput: false,
    load: async () => (await import('./job-verbs.js')).stopVerb,
  },
  admission: {
    summary: "what became here of another host's admitted ticket (ending one never started), from stdin",
    takesInput: true,
    load: async () => (await import('./admission-verb.js')).admissionVerb,
  },
  agent: {
    summary: 'launches a placed child agent here from the JSON request on stdin',
    takesInput: true,
    load: async () => (await import('./agent-verbs.js')).agentVerb,
  },
  worktree: {
    summary: "a --branch worktree in this host's checkout, from the JSON request on stdin",
    takesInput: true,
    load: async () => (await import('./agent-verbs.js')).worktreeVerb,
  },
  read: {
    summary: "a child's or job's newest output and captured reply",
    takesInput: false,
    load: async () => (await import('./agent-verbs.js')).readVerb,
  },
  close: {
    summary: 'ends a child here, as close does',
    takesInput: false,
    load: async () => (await import('./agent-verbs.js')).closeVerb,
  },
  send: {
    summary: "one record into an agent's inbox here, the text and sender on stdin",
    takesInput: true,
    load: async () => (await import('./agent-verbs.js')).sendVerb,
  },
  outbox: {
    summary: 'claim or ack the messages waiting here for an owner on another host',
    takesInput: false,
    load: async () => (await import('./outbox-verbs.js')).outboxVerb,
  },
  doctor: {
    summary: "this host's cleanup report",
    takesInput: false,
    load: async () => (await import('./cleanup-verbs.js')).doctorVerb,
  },
  prune: {
    summary: "this host's prune plan (--plan) or its removals (--yes)",
    takesInput: false,
    load: async () => (await import('./cleanup-verbs.js')).pruneVerb,
  },
  whereis: {
    summary: 'the agents and panes a name or pane id names here, for a send that looks across the fleet',
    takesInput: false,
    load: async () => (await import('./whereis-verb.js')).whereisVerb,
  },
};

/** The verb named `name`, or a one-line refusal naming the known ones. */
export function hostVerb(name: string): HostVerb {
  const verb = Object.hasOwn(HOST_VERBS, name) ? HOST_VERBS[name] : undefined;
  if (!verb) {
    const known = [...Object.keys(HOST_VERBS), 'rpc'].join(', ');
    // Quoted as typed: the one error reporter strips escape sequences from the whole line.
    throw new DogsledError(`host: unknown verb "${name}" (known: ${known})`);
  }
  return verb;
}

export async function runVerb(name: string, args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const run = await hostVerb(name).load();
  return run(args, io);
}

/** A verb that takes no arguments refuses any, naming the first. */
export function noArguments(verb: string, args: readonly string[]): void {
  if (args.length > 0) {
    throw new DogsledError(`host ${verb}: takes no arguments, got "${args[0]}"`);
  }
}
