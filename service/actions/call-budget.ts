// The one deadline a verb's call runs under (service/time/deadline.ts), as its front end sets it: a
// command's `--max` counts from the process's start (Deadline.fromProcessStart), an MCP tool call's
// budget from the call (new Deadline(ms)). A re-export: the front end owns the budget, the actions
// and the layers below them spend it.

export { Deadline } from '../time/deadline.js';
