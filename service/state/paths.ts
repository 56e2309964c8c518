// Where dogsled keeps its state and config, and the names of the files in the state dir. Path
// resolution is a pure function of (env, home) so tests and peers can compute it without touching
// the process; only ensureStateDir does I/O. The dir is 0700 and every file in it 0600.

import { chmod, mkdir } from 'node:fs/promises';
import { basename, isAbsolute, join, normalize, sep } from 'node:path';

export const STATE_DIR_MODE = 0o700;
export const STATE_FILE_MODE = 0o600;

export interface StatePaths {
  dir: string;
  /** The service's published snapshot (host.json). */
  host: string;
  /** This host's reservations (placements.json). */
  placements: string;
  /** Measurement history, one JSON object per line (samples.jsonl). */
  samples: string;
  /** proper-lockfile target of the host's service lock; the lock itself is the `service.lock` dir. */
  serviceLock: string;
  /** Who holds the service lock (service.json), so a second `serve` can name it. */
  serviceHolder: string;
  /** Short lock that serializes service-lock acquisition and takeover (`service-acquire.lock`). */
  serviceAcquire: string;
  /** Per-job records and logs (jobs/ID.json, jobs/ID.log). */
  jobs: string;
  /** The caller's environment of each queued job ticket until its admission (tickets/ID.env). */
  tickets: string;
  /** Per-launch task, contract and record (launches/ID.task.md, ID.contract.md, ID.json). */
  launches: string;
  items: string;
  queue: string;
  /** Repositories that placement has seen (repositories.json); they outlive their worktrees. */
  repositories: string;
  /** Worktrees that dogsled made (worktrees.json). */
  worktrees: string;
  /** The service's per-terminal observations that the pane rule needs (pane-watch.json). */
  paneWatch: string;
  /** Children that called `dogsled done`: their marks until the service closes them (done.json). */
  done: string;
  /** The service's observations of its children's branches, for TO LAND (branches.json). */
  branches: string;
  /** One inbox per Herdr terminal (inbox/<terminal>.json) and the stop gate's history (gate.json). */
  inbox: string;
  gate: string;
  /** The terminal of each pane a hook ran in, per Herdr server instance (terminals.json). */
  paneTerminals: string;
  /** The docked board of each Herdr tab (boards/<tab-hash>.json). */
  boards: string;
  /** ATTENTION rows each owner dismissed (`board --dismiss`), which the board shows in DONE (board-seen.json). */
  boardSeen: string;
  /** What Pi publishes of each pane's todos (todo-lines/<pane-hash>.json, protocol v3). */
  todoLines: string;
  /** The service's copy of the todos of live agent panes (todo-sections.json). */
  todoSections: string;
  /** The latest quota snapshot, collected here or pushed by a collector (quota.json). */
  quota: string;
  /** This host's quota collection backoff (quota-collect.json). */
  quotaCollect: string;
  /** Lock target that serialises quota collection; the lock is the `quota-collect.lock` dir. */
  quotaCollectLock: string;
  /** The peer cache: one entry per peer (peers/ID.json), each under its own lock. */
  peers: string;
  /** The last `herdr machine list`, shared for 10 s (hosts/machine-list.ts). */
  machineList: string;
  /** The watchdog's check-ins, job events and stall notifications (watchdog.json, locked). */
  watchdog: string;
  /** Tracked children on this host and their owners (parents.json, written by the agent work). */
  parents: string;
  /** Messages for owners on other hosts, until their services take them (outbox.json). */
  outbox: string;
  /** This host's identity as an owner of children on peers (identity.json). */
  identity: string;
  /** Peers a sender here messaged (`send --host`), whose outbox the service takes (notices.json). */
  notices: string;
  /** A requested cleanup pass (sweep-request.json), the service's wake-up socket (sweep.sock). */
  sweepRequest: string;
  sweepSock: string;
  /** Where the supervisor `serve` keeps warm waits for a job (supervisor.sock, jobs/exec-warm.ts). */
  supervisorSock: string;
  /** Where `serve` reads peers for commands over its pooled connections (peer-read.sock). */
  peerReadSock: string;
  /** The latest requested sweep pass (sweep.json) and seven days of passes (sweeps.jsonl). */
  sweep: string;
  sweeps: string;
  /** Ended children and jobs, 30 days (history.jsonl, service/history). */
  history: string;
}

/** `$DOGSLED_STATE`, else `$XDG_STATE_HOME/dogsled`, else `~/.local/state/dogsled`. */
export function stateDirFrom(env: NodeJS.ProcessEnv, home: string): string {
  if (env.DOGSLED_STATE) return env.DOGSLED_STATE;
  // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'dogsled');
  return join(home, '.local', 'state', 'dogsled');
}

export function statePaths(dir: string): StatePaths {
  const at = inDir(dir);
  return {
    dir,
    host: at('host.json'),
    placements: at('placements.json'),
    samples: at('samples.jsonl'),
    serviceLock: at('service'),
    serviceHolder: at('service.json'),
    serviceAcquire: at('service-acquire'),
    jobs: at('jobs'),
    tickets: at('tickets'),
    launches: at('launches'),
    items: at('items.json'),
    queue: at('queue.json'),
    repositories: at('repositories.json'),
    worktrees: at('worktrees.json'),
    paneWatch: at('pane-watch.json'),
    done: at('done.json'),
    branches: at('branches.json'),
    inbox: at('inbox'),
    gate: at('gate.json'),
    paneTerminals: at('terminals.json'),
    boards: at('boards'),
    boardSeen: at('board-seen.json'),
    todoLines: at('todo-lines'),
    todoSections: at('todo-sections.json'),
    quota: at('quota.json'),
    quotaCollect: at('quota-collect.json'),
    quotaCollectLock: at('quota-collect'),
    peers: at('peers'),
    machineList: at('machine-list.json'),
    watchdog: at('watchdog.json'),
    parents: at('parents.json'),
    outbox: at('outbox.json'),
    identity: at('identity.json'),
    notices: at('notices.json'),
    sweepRequest: at('sweep-request.json'),
    sweepSock: at('sweep.sock'),
    supervisorSock: at('supervisor.sock'),
    peerReadSock: at('peer-read.sock'),
    sweep: at('sweep.json'),
    sweeps: at('sweeps.jsonl'),
    history: at('history.jsonl'),
  };
}

/**
 * `join(dir, name)` for a name that is one plain segment, with `dir` normalized once: every hot
 * command builds these paths as it starts, and forty-odd joins, each normalizing the whole path
 * again, were some 2 M instructions of each. The same strings (a test holds them to join's).
 */
function inDir(dir: string): (name: string) => string {
  const base = normalize(dir);
  if (base === '.' || base === `.${sep}`) return (name) => name;
  const prefix = base.endsWith(sep) ? base : `${base}${sep}`;
  return (name) => prefix + name;
}

/**
 * Files whose records were acknowledged to a caller and exist nowhere else: a ticket or item a
 * command printed, a reservation it reported placed. Each write puts the same text in `<name>.prev`
 * first, so a damaged file is recovered whole (store.ts). host.json and pane-watch.json are rebuilt
 * every tick, job records are per job and reported rather than recovered, and losing a registry costs
 * a cleanup that is not offered, never work, so they go without.
 */
const BACKED_UP = new Set(['queue.json', 'items.json', 'placements.json', 'done.json', 'outbox.json']);

/** `<file>.prev` for a file that keeps a backup, else undefined. */
export function backupOf(file: string): string | undefined {
  return BACKED_UP.has(basename(file)) ? `${file}.prev` : undefined;
}

/** mkdir -p with mode 0700, and tighten a dir that already exists (it may hold pane ids and logs). */
export async function ensureStateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: STATE_DIR_MODE });
  await chmod(dir, STATE_DIR_MODE);
}

export interface ConfigLocation {
  path: string;
  /** True when the user named the file (flag or env): then a missing file is an error. */
  explicit: boolean;
}

/** `--config`, else `$DOGSLED_CONFIG`, else `~/.config/dogsled/config.toml`. */
export function configPathFrom(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
): ConfigLocation {
  if (flag) return { path: flag, explicit: true };
  if (env.DOGSLED_CONFIG) return { path: env.DOGSLED_CONFIG, explicit: true };
  return { path: join(home, '.config', 'dogsled', 'config.toml'), explicit: false };
}
