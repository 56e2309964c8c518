// items.json and queue.json checked by hand (engine/record-check.ts): the lean `items --json` and
// `board --json` print their records whole without loading zod. Each judges exactly as its zod
// schema (state/schemas/queue-items-schemas.ts, receipt-schemas.ts) does and gives the same data
// back, fields in the schema's order; the unit test hand-checks.test.ts holds them together.

import type { Items } from '../../core/agents/item-types.js';
import { AGENT_KINDS } from '../../core/agents/launch-line.js';
import type { EnvFile } from '../../core/jobs/job-types.js';
import { type Queue, TICKET_STATES } from '../../core/placement/queue-types.js';
import type { CheckIssue, RecordCheck } from '../engine/record-check.js';
import {
  array,
  boolean,
  handCheck,
  int,
  intAtLeast,
  type Judge,
  looseObject,
  nullable,
  number,
  oneOf,
  optional,
  string,
  stringRecord,
  versionOne,
} from './hand-check.js';

const id = string(1);
const text = string();
const maybe = (judge: Judge) => optional(nullable(judge));
const count = intAtLeast('>=0');
const usd = nullable(number('>=0'));

const ModelReceipt = looseObject({
  model: text,
  input: count,
  output: count,
  cache_read: count,
  cache_write: count,
  turns: count,
  usd,
});

const Receipt = looseObject({
  tokens: nullable(count),
  usd,
  turns: nullable(count),
  model: nullable(text),
  models: array(ModelReceipt),
  prices_as_of: nullable(text),
  wall_ms: nullable(int),
});

const Item = looseObject({
  id,
  kind: oneOf(['job', 'agent']),
  host: text,
  pane: nullable(text),
  terminal_id: nullable(text),
  owner: nullable(text),
  owner_host: maybe(text),
  owner_pane: maybe(text),
  owner_told_ms: maybe(int),
  created_ms: int,
  closed_ms: nullable(int),
  close_reason: nullable(text),
  job: nullable(text),
  ticket: nullable(text),
  command: optional(array(text)),
  name: maybe(text),
  harness: maybe(text),
  profile: maybe(text),
  model: maybe(text),
  role: maybe(oneOf(['reader', 'writer'])),
  launch: maybe(text),
  branch: maybe(text),
  worktree: maybe(text),
  repository: maybe(text),
  cwd: maybe(text),
  reply: maybe(text),
  receipt: maybe(Receipt),
  history_ms: maybe(int),
  branch_seen: maybe(looseObject({ ahead: int, dirty: boolean, landed: boolean, observed_ms: int })),
  orphaned: maybe(looseObject({ reason: text, since_ms: int })),
});

export const ItemsCheck = handCheck<Items>(looseObject({ version: versionOne, items: array(Item) }));

/**
 * ItemsCheck of a list that passed it with one item appended (appendItem: every launch): only the
 * new last item is judged. A check's data passes it again unchanged, so judging the others again
 * gives the same answer and the same data; it was most of a launch's cost once items.json holds a
 * day's items (some 0.2 M instructions an item). Anything not shaped so is judged whole.
 */
export const ItemsAppendedCheck: RecordCheck<Items> = {
  safeParse(value) {
    const items = (value as Partial<Items> | null)?.items;
    if (!Array.isArray(items) || items.length === 0) return ItemsCheck.safeParse(value);
    const last = items.length - 1;
    const issues: CheckIssue[] = [];
    const judged = Item(items[last], ['items', last], issues);
    if (issues.length > 0) return { success: false, error: { issues } };
    return {
      success: true,
      data: { ...(value as Items), items: [...items.slice(0, last), judged] } as Items,
    };
  },
};

/**
 * jobs/ID.env as `run` writes it (the caller's environment, strings only), judged without building
 * EnvFileSchema; its plain case alone (stringRecord): anything else is the schema's, behind handFirst.
 */
export const EnvFileCheck = handCheck<EnvFile>(looseObject({ version: versionOne, env: stringRecord }));

const JobRequest = looseObject({
  command: array(text, 1),
  cwd: id,
  timeout_ms: nullable(int),
  idle_timeout_ms: nullable(int),
  caller_workspace: nullable(text),
  branch: maybe(text),
  base: maybe(text),
});

const AgentRequest = looseObject({
  launch: id,
  kind: oneOf(AGENT_KINDS),
  name: id,
  profile: nullable(text),
  branch: nullable(text),
  base: nullable(text),
  cwd: id,
  caller_workspace: nullable(text),
});

const Ticket = looseObject({
  id,
  kind: oneOf(['job', 'place', 'agent']),
  created_ms: int,
  owner: nullable(text),
  pin: nullable(text),
  request: nullable(JobRequest),
  agent: maybe(AgentRequest),
  place: maybe(looseObject({ branch: id, base: nullable(text), repo: id })),
  worktree: maybe(looseObject({ path: id, branch: id, pane_id: id, workspace: id })),
  waiting: boolean,
  state: oneOf(TICKET_STATES),
  state_ms: int,
  admitter: nullable(looseObject({ pid: int, started_ms: int })),
  host: nullable(text),
  reservation: nullable(text),
  job: nullable(text),
  item: nullable(text),
  error: nullable(text),
  notice: nullable(oneOf(['pending', 'delivered'])),
  hold: maybe(looseObject({ pool: text, until_ms: int, reason: text })),
});

export const QueueCheck = handCheck<Queue>(looseObject({ version: versionOne, tickets: array(Ticket) }));
