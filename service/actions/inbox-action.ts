// `inbox list|claim|ack`, from every front end (the CLI, the MCP inbox tool, the Pi extension): the
// caller's own inbox, its Herdr terminal's (service/inbox/mine.ts). A re-export: the verbs are the
// inbox's own functions, which need nothing but the caller's ProcessIO.

export type { InboxRecord } from '../core/inbox/inbox-types.js';
export { ackMyInbox, claimMyInbox, listMyInbox } from '../inbox/mine.js';
export type { Delivery, InboxListing, SentRecord } from '../inbox/reader.js';
