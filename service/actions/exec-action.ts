// `exec ID [-- CMD]`, the job wrapper a job pane runs and its supervisor (service/jobs/supervisor),
// a program of its own: the front end hands it its own argv (to start the supervisor again) and its
// standard streams. Re-exports, so each exec bundle loads nothing more than its half: the pane's
// wrapper (execInPane, cli/hot/exec-pane.ts) or the supervisor (execJob, cli/hot/exec.ts).

export { execJob } from '../jobs/supervisor/exec.js';
export { type ExecPane, execInPane } from '../jobs/supervisor/exec-pane.js';
export type { ProcessIO } from './verb-io.js';
