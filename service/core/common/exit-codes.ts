// The exit statuses of every dogsled command, in one place (spec, "Commands"). A job wait (`wait`,
// `run --wait`) exits with the job's own status instead: its exit code, else 128 + the signal
// number, as a shell reports it, and 125 (NO_STATUS) for a job that ended without one (exitStatusOf
// in job-status.ts, the job statuses' one home).

export const EXIT = {
  ok: 0,
  /** The work was queued as a ticket and the caller did not wait for it. */
  queued: 1,
  /** Any error a user can hit: one line on stderr. */
  error: 2,
  /** A bug: dogsled printed a stack trace (sysexits' EX_SOFTWARE). */
  internal: 70,
  /** A wait reached its --max deadline and printed `still running`; the work goes on. */
  stillRunning: 124,
  /** The user interrupted a wait or a follow (Ctrl-C); the job is untouched. */
  interrupted: 130,
} as const;
