// inbox/<terminal>.json and inbox/<terminal>.d/settled.json checked by hand (engine/record-check.ts):
// the lean `send` (actions/send-glance.ts) writes a record under the inbox's lock without loading
// zod. Each judges exactly as its schema (state/schemas/inbox-schemas.ts) does and gives the same
// data back, so the store writes the same bytes; the unit test hand-checks.test.ts holds them together.

import type { Inbox, SettledInbox } from '../../core/inbox/inbox-types.js';
import { INBOX_STATES } from '../../core/inbox/inbox-types.js';
import {
  array,
  handCheck,
  int,
  intAtLeast,
  looseObject,
  nullable,
  oneOf,
  optional,
  string,
  versionOne,
} from './hand-check.js';

const count = intAtLeast('>=0');

const sender = looseObject({
  pane: nullable(string()),
  terminal: nullable(string()),
  host: string(),
  name: nullable(string()),
  host_id: optional(nullable(string())),
});

const record = looseObject({
  id: string(1),
  kind: string(1),
  sender,
  text: string(),
  body: optional(looseObject({ bytes: count, chars: count })),
  created_ms: int,
  state: oneOf(INBOX_STATES),
  attempts: count,
  lease_until_ms: nullable(int),
  delivered_ms: nullable(int),
  failed_ms: nullable(int),
  reason: nullable(string()),
  ref: nullable(string()),
  path: optional(string()),
  pane_id: optional(string()),
});

const reader = looseObject({
  harness: string(1),
  registered_ms: int,
  pane: nullable(string()),
  stop_blocks: optional(count),
});

export const InboxCheck = handCheck<Inbox>(
  looseObject({
    version: versionOne,
    terminal: string(1),
    pane: nullable(string()),
    reader: nullable(reader),
    records: array(record),
  }),
);

export const SettledInboxCheck = handCheck<SettledInbox>(
  looseObject({ version: versionOne, terminal: string(1), records: array(record) }),
);
