// What `run` needs only off its common path (a job placed on this host at once): the full
// placement when the lean one declines (queue.json's ticket, a peer's room), the wait for a queued
// ticket's admission, a job launched and followed on a peer, and a `--branch` job's worktree. One
// module, so the hot run bundle sends it to a file of its own (scripts/build.mjs, COLD), loaded
// on first use: parsing it on every run was a share of every run's start-up.

export { enabledPeers } from '../hosts/fleet.js';
export { remoteJob, remoteLogs } from '../jobs/peer-job.js';
export { submitWork } from '../queue/submit.js';
export { awaitTicket } from '../queue/ticket-wait.js';
export { checkBranchRequest, ensureBranchWorktree } from '../worktrees/branch-worktree.js';
export { launchRemoteJob } from './remote-job.js';
export { remoteWorktree } from './remote-worktree.js';
