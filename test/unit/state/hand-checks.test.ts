// The state files checked by hand (service/state/checks: sweep-request.json, which every Stop hook
// writes, placements.json, which the lean `place` writes, the inbox files the lean `send`
// writes, and the peer cache's entries, which a warm fleet `status` reads) are judged exactly as their zod schemas judge them: on thousands of generated records (every kind of JSON value in every field, alone and
// in pairs, fields missing, fields a newer dogsled added, `__proto__`, in several orders), the same
// verdict, the same data back with its fields in the same order (what the store writes), and the
// same first issue (path and words: what a quarantine warning says). Herdr's listing, which the
// lean `send` checks by hand, is held to its schema in verdict and data.

import { describe, expect, it } from 'vitest';
import { BoardSeenCheck } from '../../../service/state/checks/board-seen-check.js';
import { HostSnapshotCheck } from '../../../service/state/checks/host-snapshot-check.js';
import { InboxCheck, SettledInboxCheck } from '../../../service/state/checks/inbox-check.js';
import { isJobRecord, JobRecordCheck } from '../../../service/state/checks/job-record-check.js';
import { PeerEntryCheck, PeerReplyCheck } from '../../../service/state/checks/peer-entry-check.js';
import { PlacementsCheck } from '../../../service/state/checks/placements-check.js';
import {
  EnvFileCheck,
  ItemsAppendedCheck,
  ItemsCheck,
  QueueCheck,
} from '../../../service/state/checks/queue-items-check.js';
import { SweepPassCheck } from '../../../service/state/checks/sweep-pass-check.js';
import { SweepRequestCheck } from '../../../service/state/checks/sweep-request-check.js';
import type { RecordCheck } from '../../../service/state/engine/record-check.js';
import {
  HostSnapshotSchema,
  JobRecordSchema,
  PlacementsSchema,
} from '../../../service/state/schemas/host-schemas.js';
import { InboxSchema, SettledInboxSchema } from '../../../service/state/schemas/inbox-schemas.js';
import { PeerEntrySchema, PeerReplySchema } from '../../../service/state/schemas/peer-schemas.js';
import {
  EnvFileSchema,
  ItemsSchema,
  QueueSchema,
} from '../../../service/state/schemas/queue-items-schemas.js';
import { BoardSeenSchema } from '../../../service/state/schemas/sidebar-schemas.js';
import { SweepPassSchema, SweepRequestSchema } from '../../../service/state/schemas/sweep-schemas.js';
import { checkedListing } from '../../../service/terminal/herdr/listing-check.js';
import { ListingSchema } from '../../../service/terminal/port-records.js';
import { agentPaneFixture, snapshotFixture } from '../../helpers/snapshot.js';

/** Every kind of JSON value, and the numbers and strings at the edges of the checks. */
const VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  1_900_000_000_000,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER - 2,
  JSON.parse('1e400'),
  JSON.parse('-1e400'),
  '',
  'w1:p2',
  '1',
  [],
  [1],
  {},
  { id: 'r_1', created_ms: 1, expires_ms: 2, owner: null },
];
const EXTRAS = ['trigger', 'note', '__proto__', 'constructor'];
const PAIRED: unknown[] = [null, true, 1.5, Number.MAX_SAFE_INTEGER + 2, '', 'x', [], {}];
const ABSENT = Symbol('absent');
PAIRED.push(ABSENT);
type Path = Array<string | number>;

/** Sets (or deletes) the field at `path`; a path through a value that is no object is left alone. */
function setAt(record: unknown, path: Path, value: unknown): void {
  let at: unknown = record;
  for (const key of path.slice(0, -1)) {
    if (typeof at !== 'object' || at === null) return;
    at = (at as Record<string | number, unknown>)[key];
  }
  if (typeof at !== 'object' || at === null) return;
  const last = path[path.length - 1] as string | number;
  if (value === ABSENT) delete (at as Record<string | number, unknown>)[last];
  // A copy: a value set here may be walked into by the next path, and VALUES are shared.
  else (at as Record<string | number, unknown>)[last] = structuredClone(value);
}

/** JSON text with the keys of every object turned by `turn` places: another order, same fields. */
function turned(value: unknown, turn: number): string {
  if (Array.isArray(value)) return `[${value.map((v) => turned(v, turn)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value);
  const n = entries.length === 0 ? 0 : turn % entries.length;
  const order = [...entries.slice(n), ...entries.slice(0, n)];
  return `{${order.map(([k, v]) => `${JSON.stringify(k)}:${turned(v, turn)}`).join(',')}}`;
}

/**
 * Every value at each path alone and in each pair of paths (with `reach`, only the pairs of a path
 * and the next `reach` ones: the big records), plus extras where objects are.
 */
function* records(
  good: () => unknown,
  paths: Path[],
  objects: Path[],
  reach = paths.length,
): Generator<unknown> {
  yield* VALUES;
  const choices = [...VALUES, ABSENT];
  const made = (changes: Array<[Path, unknown]>, turn: number) => {
    const record = good();
    for (const [path, value] of changes) setAt(record, path, value);
    // Through JSON, as a file is read: `__proto__` becomes an own key.
    return JSON.parse(turned(record, turn)) as unknown;
  };
  for (const [i, a] of paths.entries()) {
    for (const [n, x] of choices.entries()) {
      yield made([[a, x]], n);
      for (const b of paths.slice(i + 1, i + 1 + reach))
        for (const y of PAIRED)
          yield made(
            [
              [a, x],
              [b, y],
            ],
            n,
          );
    }
  }
  for (const object of objects) {
    for (const [n, extra] of EXTRAS.entries()) {
      for (const value of VALUES) yield made([[[...object, extra], value]], n);
    }
  }
}

function verdict(result: { success: boolean; data?: unknown; error?: unknown }) {
  if (result.success) {
    const data = result.data as object;
    return { ok: true, text: JSON.stringify(data), plain: Object.getPrototypeOf(data) === Object.prototype };
  }
  const issue = (result.error as { issues: Array<{ path: PropertyKey[]; message: string }> }).issues[0];
  return { ok: false, path: issue?.path.map(String), message: issue?.message };
}

function expectSame(check: RecordCheck, schema: RecordCheck, all: Iterable<unknown>): void {
  let accepted = 0;
  let count = 0;
  for (const record of all) {
    const hand = verdict(check.safeParse(record));
    const zod = verdict(schema.safeParse(record));
    // expect() only on a difference: it costs more than both checks.
    if (JSON.stringify(hand) !== JSON.stringify(zod)) expect({ record, ...hand }).toEqual({ record, ...zod });
    if (hand.ok) accepted += 1;
    count += 1;
  }
  // Both kinds of verdict were exercised.
  expect(accepted).toBeGreaterThan(20);
  expect(accepted).toBeLessThan(count - 500);
}

describe('hand checks judge as their zod schemas do', () => {
  it('sweep-request.json', () => {
    const good = () => ({ version: 1, requested_ms: 1_900_000_000_000, by: 'w1:p2', handled_ms: null });
    const paths: Path[] = [['version'], ['requested_ms'], ['by'], ['handled_ms']];
    expectSame(SweepRequestCheck, SweepRequestSchema, records(good, paths, [[]]));
  });

  it('sweep.json, which the lean status --json prints whole', () => {
    const good = () => ({
      version: 1,
      ts_ms: 1_900_000_000_300,
      started_ms: 1_900_000_000_000,
      finished_ms: 1_900_000_000_300,
      request_ms: 1_899_999_999_000,
      trigger: 'request',
      results: [
        {
          kind: 'worktree',
          path: '/r/w',
          branch: 'b',
          branch_deleted: true,
          panes: ['w1:p2'],
          already_removed: false,
          detail: 'merged',
        },
      ],
      skipped: [{ kind: 'branch', path: '/r', branch: null, reason: 'dirty' }],
      failures: [{ kind: 'pane', path: 'w1:p3', branch: null, error: 'gone' }],
      warnings: ['fetch failed'],
      landed_dirty: [{ repository: '/r', checkout: '/r/c', ref: 'b', dirty: 2, paths: ['a'] }],
      unlinked: [{ repository: '/r', path: '/r/u', reason: 'missing' }],
      orphans: [{ item: 'i_1', name: null, pane: 'w1:p4', path: null, reason: 'open' }],
      error: null,
    });
    const record = good() as Record<string, unknown>;
    const paths: Path[] = [
      ...Object.keys(record).map((f) => [f]),
      ...['kind', 'path', 'branch', 'branch_deleted', 'panes', 'already_removed', 'detail'].map((f) => [
        'results',
        0,
        f,
      ]),
      ['results', 0, 'panes', 0],
      ...['kind', 'path', 'branch', 'reason'].map((f) => ['skipped', 0, f]),
      ...['kind', 'path', 'branch', 'error'].map((f) => ['failures', 0, f]),
      ['warnings', 0],
      ...['repository', 'checkout', 'ref', 'dirty', 'paths'].map((f) => ['landed_dirty', 0, f]),
      ['landed_dirty', 0, 'paths', 0],
      ...['repository', 'path', 'reason'].map((f) => ['unlinked', 0, f]),
      ...['item', 'name', 'pane', 'path', 'reason'].map((f) => ['orphans', 0, f]),
    ];
    const objects: Path[] = [[], ['results', 0], ['skipped', 0], ['landed_dirty', 0], ['orphans', 0]];
    expectSame(SweepPassCheck, SweepPassSchema, records(good, paths, objects, 2));
  });

  it('placements.json', () => {
    const good = () => ({
      version: 1,
      reservations: [
        { id: 'r_aaaaaaaaaaaa', created_ms: 1_900_000_000_000, expires_ms: 1_900_000_090_000, owner: null },
        {
          id: 'r_bbbbbbbbbbbb',
          created_ms: 1_900_000_000_001,
          expires_ms: 1_900_000_090_001,
          owner: 'w1:p1',
        },
      ],
    });
    const fields = ['id', 'created_ms', 'expires_ms', 'owner'];
    const paths: Path[] = [
      ['version'],
      ['reservations'],
      ...fields.map((f) => ['reservations', 0, f]),
      ...fields.map((f) => ['reservations', 1, f]),
    ];
    expectSame(PlacementsCheck, PlacementsSchema, records(good, paths, [[], ['reservations', 1]]));
  });

  it('inbox/<terminal>.json and its settled.json', () => {
    const record = (id: string, extra: object = {}) => ({
      id,
      kind: 'message',
      sender: { pane: 'w1:p1', terminal: 'term_1', host: 'local', name: null, host_id: 'h_aaaaaaaaaaaa' },
      text: 'hello',
      body: { bytes: 9000, chars: 8999 },
      created_ms: 1_900_000_000_000,
      state: 'pending',
      attempts: 0,
      lease_until_ms: null,
      delivered_ms: null,
      failed_ms: null,
      reason: null,
      ref: null,
      path: '/tmp/w',
      pane_id: 'w1:p2',
      ...extra,
    });
    const good = () => ({
      version: 1,
      terminal: 'term_1',
      pane: 'w1:p2',
      reader: { harness: 'claude', registered_ms: 1_900_000_000_000, pane: 'w1:p2', stop_blocks: 1 },
      records: [record('m_aaaaaaaaaaaa'), record('m_bbbbbbbbbbbb', { state: 'delivered', delivered_ms: 1 })],
    });
    const fields = Object.keys(record('x'));
    const sender = ['pane', 'terminal', 'host', 'name', 'host_id'];
    const paths: Path[] = [
      ['version'],
      ['terminal'],
      ['pane'],
      ['reader'],
      ['records'],
      ...['harness', 'registered_ms', 'pane', 'stop_blocks'].map((f) => ['reader', f]),
      ...fields.map((f) => ['records', 0, f]),
      ...sender.map((f) => ['records', 0, 'sender', f]),
      ['records', 0, 'body', 'bytes'],
      ['records', 0, 'body', 'chars'],
      ['records', 1, 'state'],
    ];
    const objects: Path[] = [
      [],
      ['reader'],
      ['records', 0],
      ['records', 0, 'sender'],
      ['records', 0, 'body'],
    ];
    expectSame(InboxCheck, InboxSchema, records(good, paths, objects, 0));
    // A few fields in pairs, where a first issue and a second meet.
    const paired: Path[] = [
      ['version'],
      ['records', 0, 'state'],
      ['records', 0, 'attempts'],
      ['reader', 'pane'],
    ];
    expectSame(InboxCheck, InboxSchema, records(good, paired, []));
    const settled = () => {
      const { version, terminal, records: list } = good();
      return { version, terminal, records: list };
    };
    const settledPaths: Path[] = [
      ['version'],
      ['terminal'],
      ['records'],
      ...fields.map((f) => ['records', 1, f]),
    ];
    function* settledRecords() {
      yield* records(settled, settledPaths, [[]], 0);
      yield* records(
        settled,
        [['version'], ['terminal'], ['records', 1, 'state'], ['records', 1, 'ref']],
        [],
      );
    }
    expectSame(SettledInboxCheck, SettledInboxSchema, settledRecords());
  });

  it("Herdr's listing (session.snapshot), read by the lean send and the port's listAll: accepted as the schema accepts it", () => {
    const session = { source: 's', agent: 'claude', kind: 'id', value: 'v' };
    const good = () => ({
      version: '0.8.0',
      protocol: 20,
      focused_workspace_id: 'w1',
      focused_tab_id: 'w1:t1',
      focused_pane_id: 'w1:p1',
      workspaces: [
        {
          workspace_id: 'w1',
          number: 1,
          label: 'repo',
          focused: true,
          pane_count: 1,
          tab_count: 1,
          active_tab_id: 'w1:t1',
          agent_status: 'idle',
          tokens: { a: 'b' },
          worktree: {
            repo_key: 'k',
            repo_name: 'n',
            repo_root: '/r',
            checkout_path: '/c',
            is_linked_worktree: false,
          },
        },
      ],
      tabs: [
        {
          tab_id: 'w1:t1',
          workspace_id: 'w1',
          number: 1,
          label: 't',
          focused: true,
          pane_count: 1,
          agent_status: 'done',
        },
      ],
      panes: [
        {
          pane_id: 'w1:p1',
          terminal_id: 'term_1',
          workspace_id: 'w1',
          tab_id: 'w1:t1',
          focused: true,
          cwd: '/c',
          agent_status: 'working',
          agent_session: session,
          revision: 3,
        },
      ],
      agents: [
        {
          terminal_id: 'term_1',
          name: 'worker',
          agent: 'claude',
          agent_status: 'blocked',
          agent_session: session,
          workspace_id: 'w1',
          tab_id: 'w1:t1',
          pane_id: 'w1:p1',
          focused: true,
          launch_pending: false,
          state_change_seq: 4,
        },
      ],
    });
    const fieldsOf = (path: Path) => {
      let at: unknown = good();
      for (const key of path) at = (at as Record<string | number, unknown>)[key];
      return Object.keys(at as object).map((f) => [...path, f]);
    };
    const paths: Path[] = [
      ...fieldsOf([]),
      ...fieldsOf(['workspaces', 0]),
      ...fieldsOf(['workspaces', 0, 'worktree']),
      ...fieldsOf(['tabs', 0]),
      ...fieldsOf(['panes', 0]),
      ...fieldsOf(['panes', 0, 'agent_session']),
      ...fieldsOf(['agents', 0]),
      ['agents', 0, 'terminal_title'],
      ['panes', 0, 'tokens', 'x'],
    ];
    let accepted = 0;
    let count = 0;
    for (const listing of records(good, paths, [[], ['agents', 0], ['panes', 0]], 0)) {
      const hand = checkedListing(listing);
      const zod = ListingSchema.safeParse(listing);
      const seen = { ok: hand !== undefined, text: JSON.stringify(hand) };
      const expected = { ok: zod.success, text: JSON.stringify(zod.success ? zod.data : undefined) };
      if (JSON.stringify(seen) !== JSON.stringify(expected))
        expect({ listing, ...seen }).toEqual({ listing, ...expected });
      if (seen.ok) accepted += 1;
      count += 1;
    }
    expect(accepted).toBeGreaterThan(20);
    expect(accepted).toBeLessThan(count - 500);
  });

  // Fewer paths in pairs for the big records: each field alone, and pairs within one object.
  it('items.json', () => {
    const receipt = {
      tokens: 10,
      usd: 0.5,
      turns: 2,
      model: 'm',
      models: [{ model: 'm', input: 1, output: 2, cache_read: 0, cache_write: 0, turns: 2, usd: null }],
      prices_as_of: '2026-01-01',
      wall_ms: 5,
    };
    const good = () => ({
      version: 1,
      items: [
        {
          id: 'i_1',
          kind: 'agent',
          host: 'local',
          pane: 'w1:p2',
          terminal_id: null,
          owner: 'w1:p1',
          owner_host: null,
          created_ms: 1,
          closed_ms: null,
          close_reason: null,
          job: null,
          ticket: null,
          command: ['a'],
          role: 'reader',
          receipt: structuredClone(receipt),
          branch_seen: { ahead: 1, dirty: false, landed: true, observed_ms: 3 },
          orphaned: { reason: 'r', since_ms: 4 },
        },
      ],
    });
    const item = ['items', 0];
    const fields = Object.keys(good().items[0] as object);
    const paths: Path[] = [
      ['version'],
      ['items'],
      ...fields.map((f) => [...item, f]),
      ...['harness', 'history_ms'].map((f) => [...item, f]),
      ...Object.keys(receipt).map((f) => [...item, 'receipt', f]),
      ...['input', 'usd', 'model'].map((f) => [...item, 'receipt', 'models', 0, f]),
      ...['ahead', 'dirty'].map((f) => [...item, 'branch_seen', f]),
      [...item, 'orphaned', 'since_ms'],
    ];
    expectSame(ItemsCheck, ItemsSchema, records(good, paths, [[], item, [...item, 'receipt']], 1));
    // appendItem's write check: a list that passed ItemsCheck (its data) with any candidate item
    // appended is judged by ItemsAppendedCheck as ItemsCheck judges it whole, data and issues alike.
    const base = ItemsCheck.safeParse(
      JSON.parse(JSON.stringify({ version: 1, items: [good().items[0], good().items[0]] })),
    );
    if (!base.success) throw new Error('the base list must pass');
    const appended = function* () {
      for (const candidate of records(good, paths, [[], item, [...item, 'receipt']], 1)) {
        const entry = (candidate as { items?: unknown[] } | null)?.items?.[0];
        yield { ...base.data, items: [...base.data.items, entry] };
      }
    };
    expectSame(ItemsAppendedCheck, ItemsCheck, appended());
    // What holds no list to append to is judged whole.
    for (const odd of [
      null,
      1,
      [],
      {},
      { version: 1 },
      { version: 1, items: [] },
      { version: 2, items: {} },
    ]) {
      expect(verdict(ItemsAppendedCheck.safeParse(odd))).toEqual(verdict(ItemsCheck.safeParse(odd)));
    }
  });

  it('queue.json', () => {
    const good = () => ({
      version: 1,
      tickets: [
        {
          id: 't_1',
          kind: 'job',
          created_ms: 1,
          owner: null,
          pin: null,
          request: {
            command: ['x'],
            cwd: '/w',
            timeout_ms: null,
            idle_timeout_ms: 5,
            caller_workspace: null,
            branch: 'b',
          },
          agent: {
            launch: 'l',
            kind: 'pi',
            name: 'n',
            profile: null,
            branch: null,
            base: null,
            cwd: '/w',
            caller_workspace: 'w1',
          },
          place: { branch: 'b', base: null, repo: '/r' },
          worktree: { path: '/p', branch: 'b', pane_id: 'w1:p3', workspace: 'w1' },
          waiting: false,
          state: 'pending',
          state_ms: 2,
          admitter: { pid: 3, started_ms: 4 },
          host: null,
          reservation: null,
          job: null,
          item: null,
          error: null,
          notice: 'pending',
          hold: { pool: 'claude', until_ms: 9, reason: 'r' },
        },
      ],
    });
    const ticket = ['tickets', 0];
    const fields = Object.keys(good().tickets[0] as object);
    const paths: Path[] = [
      ['version'],
      ['tickets'],
      ...fields.map((f) => [...ticket, f]),
      ...['command', 'cwd', 'branch'].map((f) => [...ticket, 'request', f]),
      [...ticket, 'request', 'command', 0],
      ...['launch', 'kind'].map((f) => [...ticket, 'agent', f]),
      [...ticket, 'place', 'repo'],
      [...ticket, 'worktree', 'pane_id'],
      [...ticket, 'admitter', 'pid'],
      [...ticket, 'hold', 'until_ms'],
    ];
    expectSame(QueueCheck, QueueSchema, records(good, paths, [[], ticket], 1));
  });

  it('a job record', () => {
    const good = () => ({
      version: 1,
      id: 'j_1',
      command: ['true'],
      cwd: '/w',
      host: 'local',
      owner: null,
      pane: null,
      created_ms: 1,
      started_ms: 2,
      ended_ms: null,
      exit_code: null,
      signal: null,
      reason: null,
      wrapper_pid: 5,
      wrapper_start: 6,
      pgid: 7,
      timeout_ms: null,
      peak_rss_bytes: 1.5,
      cpu_ms: 0,
    });
    const fields = [...Object.keys(good()), 'tab', 'pgid_start', 'item'];
    const paths: Path[] = [...fields.map((f) => [f]), ['command', 0]];
    expectSame(JobRecordCheck, JobRecordSchema, records(good, paths, [[]], 2));
    // isJobRecord, the verdict alone the lean `ps --json` judges the records it does not print by.
    let differing = 0;
    let sound = 0;
    for (const record of records(good, paths, [[]], 2)) {
      const verdict = JobRecordCheck.safeParse(record).success;
      if (isJobRecord(record) !== verdict) {
        differing += 1;
        expect({ record, verdict: isJobRecord(record) }).toEqual({ record, verdict });
      }
      if (verdict) sound += 1;
    }
    expect({ differing, someSound: sound > 20 }).toEqual({ differing: 0, someSound: true });
  });

  it('board-seen.json', () => {
    const good = () => ({
      version: 1,
      seen: [{ owner: 'w1:p1', kind: 'job', id: 'j_1', since_ms: 1, seen_ms: 2 }],
    });
    const fields = ['owner', 'kind', 'id', 'since_ms', 'seen_ms'];
    const paths: Path[] = [['version'], ['seen'], ...fields.map((f) => ['seen', 0, f])];
    expectSame(BoardSeenCheck, BoardSeenSchema, records(good, paths, [[], ['seen', 0]]));
  });

  it('host.json', () => {
    const good = () => {
      const snapshot = snapshotFixture({ sample_ms: 1_900_000_000_000, busy: 0.5 }) as unknown as Record<
        string,
        Record<string, unknown>
      >;
      (snapshot.probe as Record<string, unknown>).agent_panes = [
        {
          ...agentPaneFixture('w1:p2', 'working', 1_899_999_999_000),
          activity: { at_ms: null, kind: 'tool', text: 'x' },
          ahead: 1,
          dirty: false,
        },
      ];
      (snapshot.probe as Record<string, unknown>).terminal = { kind: 'herdr', why: 'env' };
      (snapshot as Record<string, unknown>).jobs = [
        {
          id: 'j_1',
          command: ['true'],
          cwd: '/w',
          host: 'local',
          owner: null,
          pane: null,
          created_ms: 1,
          started_ms: null,
          ended_ms: null,
          exit_code: null,
          signal: null,
          reason: null,
        },
      ];
      (snapshot as Record<string, unknown>).facts = {
        read_ms: 1,
        os: { platform: 'linux', distro: 'd', release: 'r', kernel: 'k', arch: 'x64' },
        cpu: null,
        memory_bytes: 10,
        gpus: [{ vendor: 'v', model: 'm', memory_bytes: null }],
        errors: [],
      };
      return snapshot;
    };
    const pane = ['probe', 'agent_panes', 0];
    const paths: Path[] = [
      ...Object.keys(good()).map((f) => [f]),
      ...['id', 'label'].map((f) => ['host', f]),
      ...['pid', 'interval_ms'].map((f) => ['liveness', f]),
      ...Object.keys(good().probe ?? {}).map((f) => ['probe', f]),
      ['probe', 'cpu_ticks', 'idle'],
      ['probe', 'memory', 'free_bytes'],
      ['probe', 'disk', 'free_bytes'],
      ['probe', 'agents', 'live'],
      ['probe', 'terminal', 'why'],
      ...Object.keys(agentPaneFixture('w1:p2', 'working', 1)).map((f) => [...pane, f]),
      [...pane, 'activity', 'at_ms'],
      ...['free_cores', 'eligible', 'reason', 'live_agents'].map((f) => ['headroom', f]),
      ...['id', 'command', 'cpu_ms', 'ended_ms'].map((f) => ['jobs', 0, f]),
      ...['read_ms', 'os', 'cpu', 'gpus'].map((f) => ['facts', f]),
      ['facts', 'os', 'arch'],
      ['facts', 'gpus', 0, 'memory_bytes'],
    ];
    expectSame(
      HostSnapshotCheck,
      HostSnapshotSchema,
      records(good, paths, [[], ['probe'], pane, ['jobs', 0], ['facts']], 1),
    );
  });

  it("peers/ID.json, a peer's reply with escapes, huge strings and deep extras in it", () => {
    const hostile = ['\u001b[31mred\u001b[0m', 'a\nb\tc\u0007', '\u009b2J\u001b]0;title\u0007', 'é😀'];
    const huge = `${'x'.repeat(300_000)}\u001b[2J${'y'.repeat(300_000)}`;
    const good = () => {
      const snapshot = snapshotFixture({ sample_ms: 1_900_000_000_000, busy: 0.5 }) as unknown as Record<
        string,
        unknown
      >;
      return {
        version: 1,
        id: 'f1',
        target: 'user@f1',
        attempt_ms: 1_900_000_000_000,
        read_ms: 1_900_000_000_000,
        unreachable: null,
        failures: 0,
        retry_at_ms: null,
        reply: {
          now_ms: 1_900_000_000_000,
          host: {
            hostname: 'vm',
            service: 'up',
            sample_ms: 1_900_000_000_000,
            interval_ms: 5000,
            probe: snapshot.probe,
            headroom: snapshot.headroom,
            reservations: [{ id: 'r_1', created_ms: 1, expires_ms: 2, owner: 'w1:p1' }],
            errors: ['e'],
            facts: {
              read_ms: 1,
              os: { platform: 'linux', distro: 'd', release: 'r', kernel: 'k', arch: 'x64' },
              cpu: null,
              memory_bytes: 10,
              gpus: [],
              errors: [],
            },
          },
          jobs: [
            {
              id: 'j_1',
              command: ['true'],
              cwd: '/w',
              host: 'local',
              owner: null,
              pane: null,
              created_ms: 1,
              started_ms: null,
              ended_ms: null,
              exit_code: null,
              signal: null,
              reason: null,
            },
          ],
          bus: { identity: 'h_abcdefghijk2', rpc: true },
        },
      };
    };
    const reply = ['reply'];
    const host = ['reply', 'host'];
    const paths: Path[] = [
      ...Object.keys(good()).map((f) => [f]),
      ...Object.keys(good().reply).map((f) => [...reply, f]),
      ...Object.keys(good().reply.host).map((f) => [...host, f]),
      [...host, 'probe', 'cores'],
      [...host, 'probe', 'memory', 'free_bytes'],
      [...host, 'headroom', 'eligible'],
      [...host, 'reservations', 0, 'id'],
      [...host, 'reservations', 0, 'owner'],
      [...host, 'facts', 'read_ms'],
      [...host, 'facts', 'os', 'arch'],
      ['reply', 'jobs', 0, 'id'],
      ['reply', 'bus', 'identity'],
      ['reply', 'bus', 'rpc'],
    ];
    const objects: Path[] = [[], reply, host, [...host, 'probe'], ['reply', 'jobs', 0], ['reply', 'bus']];
    function* entries(): Generator<unknown> {
      yield* records(good, paths, objects, 1);
      // The values of a peer's own choosing: every string field, an extra field and an extra key.
      const strings: Path[] = [
        ['id'],
        ['target'],
        ['unreachable'],
        ['via'],
        [...host, 'hostname'],
        [...host, 'service'],
        [...host, 'errors', 0],
        [...host, 'probe', 'os'],
        [...host, 'headroom', 'reason', 0],
        [...host, 'reservations', 0, 'owner'],
        [...host, 'facts', 'os', 'distro'],
        ['reply', 'jobs', 0, 'command', 0],
        ['reply', 'bus', 'identity'],
        [...reply, 'note'],
        [...host, 'probe', 'note'],
      ];
      for (const path of strings) {
        for (const text of [...hostile, huge]) {
          const entry = good();
          setAt(entry, path, text);
          yield JSON.parse(JSON.stringify(entry));
          const keyed = good() as Record<string, unknown>;
          setAt(keyed, [...path.slice(0, -1), text], 'v');
          yield JSON.parse(JSON.stringify(keyed));
        }
      }
      // Nesting past plainStrings' depth, in an extra field and in a job's command.
      let deep: unknown = 'end\u001b[0m';
      for (let i = 0; i < 40; i++) deep = i % 2 ? [deep] : { k: deep };
      for (const path of [
        [...reply, 'deep'],
        [...host, 'probe', 'deep'],
        ['reply', 'jobs', 0, 'extra'],
      ]) {
        const entry = good();
        setAt(entry, path, deep);
        yield JSON.parse(JSON.stringify(entry));
      }
      // Two extra keys that become the same key once plain.
      yield JSON.parse(JSON.stringify({ ...good(), reply: { ...good().reply, 'a\nb': 1, 'a\tb': 2 } }));
      yield { ...good(), via: 'bus', unreachable: 'stale' };
    }
    expectSame(PeerEntryCheck, PeerEntrySchema, entries());
    // The reply alone, as a cold read judges what the peer printed (hosts/peer-cache.ts).
    function* replies(): Generator<unknown> {
      for (const entry of entries())
        yield typeof entry === 'object' && entry !== null && 'reply' in entry ? entry.reply : entry;
    }
    expectSame(PeerReplyCheck, PeerReplySchema, replies());
  });

  it('keeps what a newer dogsled wrote after the known fields, never a __proto__', () => {
    const record = JSON.parse(
      '{"note":"x","__proto__":{"polluted":1},"handled_ms":null,"by":null,"requested_ms":5,"version":1}',
    );
    const result = SweepRequestCheck.safeParse(record);
    expect(result.success && JSON.stringify(result.data)).toBe(
      '{"version":1,"requested_ms":5,"by":null,"handled_ms":null,"note":"x"}',
    );
    expect(result.success && Object.getPrototypeOf(result.data)).toBe(Object.prototype);
  });
});

describe('jobs/ID.env as run writes it (EnvFileCheck, job-env-write.ts)', () => {
  // The check judges only what callerEnvironment builds, a plain object of strings: there it gives
  // EnvFileSchema's verdict and data, keys in the same order (integer-like ones first, as both
  // iterate). Anything else it refuses; its one writer passes nothing else.
  const plain: Array<Record<string, string>> = [
    {},
    { PATH: '/usr/bin', HOME: '/home/me' },
    { b: '1', a: '2', 10: 'ten', 2: 'two', 'x=y': '', '': 'empty' },
    { ESC: '\u001b[31mred\u001b[0m', NL: 'a\nb', UNI: 'é\u0000ß', LONG: 'x'.repeat(100_000) },
    Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`K${i}`, `v${i}`])),
  ];
  it('accepts a plain record of strings with the schema, giving the same data', () => {
    for (const env of plain) {
      const record = { version: 1, env };
      const hand = EnvFileCheck.safeParse(record);
      const schema = EnvFileSchema.safeParse(record);
      expect(hand.success).toBe(true);
      expect(schema.success).toBe(true);
      expect(JSON.stringify(hand.success && hand.data)).toBe(JSON.stringify(schema.success && schema.data));
    }
    const extra = { version: 1, env: { A: 'a' }, later: [1] };
    expect(EnvFileCheck.safeParse(extra)).toEqual(EnvFileSchema.safeParse(extra));
  });
  it('refuses whatever the schema refuses, and what is not a plain record of strings', () => {
    const refused = [
      { version: 2, env: {} },
      { version: 1 },
      { version: 1, env: null },
      { version: 1, env: [] },
      { version: 1, env: 'A=b' },
      { version: 1, env: { A: 1 } },
      { version: 1, env: { A: null } },
      { version: 1, env: { A: 'a', B: ['b'] } },
      null,
      [],
    ];
    for (const record of refused) {
      expect(EnvFileCheck.safeParse(record).success).toBe(false);
      expect(EnvFileSchema.safeParse(record).success).toBe(false);
    }
    for (const env of [JSON.parse('{"__proto__":"x"}'), new (class Env {})(), { [Symbol('s')]: 'x' }]) {
      expect(EnvFileCheck.safeParse({ version: 1, env }).success).toBe(false);
    }
  });
});
