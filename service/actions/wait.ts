// `wait JOB|TICKET`, from every front end: the job's final record once it ended, on this host
// (service/jobs/by-ref.ts) or polling the peer that runs it. A queued ticket is waited for until the
// service admits it, under the same deadline. Reaching the deadline or the user's interrupt
// (UserIO.untilStopped) ends the wait only: a wait never cancels or signals its job.

import { type WaitOutcome, waitForRef } from '../jobs/by-ref.js';
import { remoteJobOf, waitRemoteRef } from '../jobs/peer-job.js';
import type { LazyHostIO } from './verb-io.js';

export type { WaitOutcome };

export async function waitJobRef(io: LazyHostIO, ref: string, deadline: AbortSignal): Promise<WaitOutcome> {
  const remote = await remoteJobOf(io, ref, io.hostIO);
  const wait = (stopped: AbortSignal) =>
    remote ? waitRemoteRef(remote, ref, { deadline, stopped }) : waitForRef(io, ref, { deadline, stopped });
  return io.untilStopped ? io.untilStopped(wait) : wait(new AbortController().signal);
}
