// `logs JOB|TICKET [--follow]`, from every front end: the job's output as exec captured it, read
// from this host's jobs/ID.log or, for a job on a peer, through `host logs` there from offset 0. A
// ticket still queued has no output yet (the outcome says so); with `follow` it is waited for, then
// its job followed until it ends. The user's interrupt (UserIO.untilStopped) ends a follow and
// leaves the job as it is; the bytes go to UserIO.output unchanged, escapes and all: they are the
// user's own command's output, replayed.

import { type LogsOutcome, logsOfRef } from '../jobs/by-ref.js';
import { logsRemoteRef, remoteJobOf } from '../jobs/peer-job.js';
import type { LazyHostIO } from './verb-io.js';

export type { LogsOutcome };

export async function readJobLogs(
  io: LazyHostIO,
  ref: string,
  request: { follow: boolean },
): Promise<LogsOutcome> {
  const { follow } = request;
  const write = io.output ?? (() => {});
  const remote = await remoteJobOf(io, ref, io.hostIO);
  const read = (stopped?: AbortSignal) => {
    const options = { follow, write, ...(stopped ? { stopped } : {}) };
    return remote ? logsRemoteRef(remote, ref, options) : logsOfRef(io, ref, options);
  };
  return follow && io.untilStopped ? io.untilStopped(read) : read();
}
