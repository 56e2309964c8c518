// The text of a message or a task as a front end reads it: `--message TEXT`, the file
// `--message-file PATH` names, or stdin for `--message-file -` (service/inbox/message-source.ts, one
// reader with one bound and one set of refusals). A re-export: reading the flags is the front end's
// part, and `send`, `agent` and the MCP tools then hand the text to their actions.

export { type MessageIO, readMessage } from '../inbox/message-source.js';
