// The records of a job: jobs/ID.json (which `run` creates and `exec` completes), the summary a host
// publishes of it, and the caller's environment file. The core owns them; host-schemas.ts and
// queue-items-schemas.ts check their schemas against them.

/** A job record: jobs/ID.json, replaced whole as the job moves created -> started -> ended. */
export type JobRecord = {
  version: 1;
  id: string;
  /** The argv that `exec` ran (never a shell string). */
  command: string[];
  cwd: string;
  /** The host id the job ran on. */
  host: string;
  /** The pane that asked for the job, when the caller ran inside Herdr. */
  owner: string | null;
  /** The pane the job runs in; null for a headless job. */
  pane: string | null;
  created_ms: number;
  started_ms: number | null;
  /** Set once, when the final record is saved; a job without it has not ended. */
  ended_ms: number | null;
  exit_code: number | null;
  /** The signal that ended the child (SIGTERM...), null when it exited. */
  signal: string | null;
  /** Why dogsled ended it (timeout, idle-timeout, stop...), null for a natural end. */
  reason: string | null;
  /** Herdr's terminal id of `pane`: a pane id can be reused by a later server, a terminal id not. */
  terminal_id?: string | null;
  workspace?: string | null;
  tab?: string | null;
  /** The exec wrapper's pid and its /proc start time (clock ticks), so a reused pid is not it. */
  wrapper_pid?: number | null;
  wrapper_start?: number | null;
  /** The command's process group (its leader's pid): what stop, timeouts and cleanup kill. */
  pgid?: number | null;
  pgid_start?: number | null;
  /** Both default to unlimited (null). */
  timeout_ms?: number | null;
  idle_timeout_ms?: number | null;
  /** The queue ticket it was admitted from, and the owner's item that tracks it. */
  ticket?: string | null;
  item?: string | null;
  /** The placement reservation the job holds; it ends when the job ends, not at its TTL. */
  reservation?: string | null;
  /**
   * What the job used, in its final record (null when it could not be measured): the largest
   * resident memory of its process group, and the CPU time of its command and its descendants.
   */
  peak_rss_bytes?: number | null;
  cpu_ms?: number | null;
};

/** A job as host.json publishes it, so `ps --all` can read a host's jobs from its snapshot. */
export type JobSummary = Pick<
  JobRecord,
  | 'id'
  | 'command'
  | 'cwd'
  | 'host'
  | 'owner'
  | 'pane'
  | 'created_ms'
  | 'started_ms'
  | 'ended_ms'
  | 'exit_code'
  | 'signal'
  | 'reason'
  | 'peak_rss_bytes'
  | 'cpu_ms'
>;

/**
 * The caller's environment for one job (jobs/ID.env) or one queued ticket (tickets/ID.env): kept out
 * of every other record because it can hold secrets.
 */
export type EnvFile = { version: 1; env: Record<string, string> };
