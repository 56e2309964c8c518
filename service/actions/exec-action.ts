// `exec ID [-- CMD]`, the job wrapper a job pane runs and its supervisor (service/jobs/supervisor),
// a program of its own: the front end hands it its own argv (to start the supervisor again) and its
// standard streams. A re-export, so the hot exec bundle loads nothing more than the supervisor.

export { execJob } from '../jobs/supervisor/exec.js';
