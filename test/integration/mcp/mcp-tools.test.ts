// `dogsled mcp` through a real MCP client: every tool answers with what its command prints for the
// same state (the `--json` document, or send's line), the caller is the harness's HERDR_PANE_ID,
// and `run` and `place` answer at once with the job or the queued ticket. Both sides run on one
// test clock (DOGSLED_TEST_NOW_MS), so documents compare whole.

import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PlacedSchema, QueuedSchema, RunStartedSchema } from '../../../cli/output-schemas.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { type McpSession, startMcp } from '../../helpers/mcp-client.js';
import { SPEC_TOOLS } from '../../helpers/mcp-spec.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
let lock: ServiceLock;
let now: number;
let work: string;
const sessions: McpSession[] = [];

// One sandbox and fake Herdr for the file; each test gets new panes, a new work directory and a
// state dir as a running service leaves it (emptied after the test), so the documents it compares
// are its own. The child's reader is registered by the claim action in this process.
beforeAll(async () => {
  t = await inboxBox();
});

beforeEach(async () => {
  lead = await t.newPane();
  child = await t.newPane();
  await t.register(child);
  lock = await holdServiceLock(t.box.state);
  now = Date.now();
  await room(true);
  work = await mkdtemp(join(t.box.root, 'work-'));
});

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
  await lock.release();
  await rm(t.box.state, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  await mkdir(t.box.state, { mode: 0o700 });
});

afterAll(async () => {
  await t?.close();
});

/** A fresh snapshot of this host, by the test clock: 8 idle cores, or 90% busy. */
function room(free: boolean): Promise<void> {
  return writeSnapshot(
    t.box.state,
    snapshotFixture({ sample_ms: now - 500, cores: 8, busy: free ? 0 : 0.9 }),
  );
}

function envOf(pane: PaneRef): NodeJS.ProcessEnv {
  return t.envOf(pane, { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(now) });
}

function cli(pane: PaneRef, args: string[]) {
  return runCli(args, envOf(pane), { cwd: work });
}

async function mcp(pane: PaneRef): Promise<McpSession> {
  const session = await startMcp(envOf(pane), work);
  sessions.push(session);
  return session;
}

async function started(id: string): Promise<JobRecord> {
  return waitFor(
    `job ${id} to start`,
    async () => {
      const text = await readFile(join(t.box.state, 'jobs', `${id}.json`), 'utf8');
      const record = JobRecordSchema.parse(JSON.parse(text));
      return record.started_ms === null ? undefined : record;
    },
    { timeoutMs: 15_000 },
  );
}

describe('dogsled mcp', () => {
  it('lists the tools of this build, each with an object schema that refuses unknown arguments', async () => {
    const { tools } = await (await mcp(lead)).client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...SPEC_TOOLS]);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.description?.length).toBeGreaterThan(20);
    }
  });

  it('status, place and cancel answer with the documents of status, place and cancel --json', async () => {
    const server = await mcp(lead);
    const placed = PlacedSchema.parse(await server.json('place'));
    const fromCli = await cli(lead, ['place', '--json']);
    expect(fromCli.code).toBe(0);
    expect(placed).toEqual({
      ...PlacedSchema.parse(JSON.parse(fromCli.stdout)),
      reservation: placed.reservation,
    });
    expect(await server.json('status')).toEqual(JSON.parse((await cli(lead, ['status', '--json'])).stdout));

    // Every host full: both queue a ticket, and status shows both, oldest first.
    await room(false);
    const queued = QueuedSchema.parse(await server.json('place', { host: 'local' }));
    const queuedByCli = await cli(lead, ['place', '--json', '--host', 'local']);
    expect(queuedByCli.code).toBe(1);
    const other = QueuedSchema.parse(JSON.parse(queuedByCli.stdout));
    const status = (await server.json('status')) as { queue: Array<{ id: string; owner: string }> };
    expect(status).toEqual(JSON.parse((await cli(lead, ['status', '--json'])).stdout));
    expect(status.queue.map((ticket) => [ticket.id, ticket.owner])).toEqual([
      [queued.ticket, lead.pane],
      [other.ticket, lead.pane],
    ]);

    const cancelled = (await server.json('cancel', { ticket: queued.ticket })) as { id: string };
    const byCli = await cli(lead, ['cancel', '--json', other.ticket]);
    expect(byCli.code).toBe(0);
    expect(cancelled).toEqual({ ...JSON.parse(byCli.stdout), id: queued.ticket });
    // A second cancel is refused in the CLI's own words.
    const again = await server.call('cancel', { ticket: queued.ticket });
    const againByCli = await cli(lead, ['cancel', other.ticket]);
    expect(again).toEqual({
      isError: true,
      text: againByCli.stderr.trim().replace(other.ticket, queued.ticket),
    });
  }, 60_000);

  it('run answers at once with the started job, as run --json does, owned by the caller; stop ends it as stop --json', async () => {
    const server = await mcp(lead);
    const script = ['sh', '-c', 'echo up; sleep 60'];
    const job = RunStartedSchema.parse(await server.json('run', { command: script }));
    const byCli = await cli(lead, ['run', '--json', '--', ...script]);
    expect(byCli.code).toBe(0);
    const other = RunStartedSchema.parse(JSON.parse(byCli.stdout));
    expect(job).toMatchObject({
      queued: false,
      host: other.host,
      pane: expect.stringMatching(/^w\d+:p\d+$/),
    });
    const [mine, theirs] = await Promise.all([started(job.job), started(other.job)]);
    // The same request: argv, directory, owner; the server's directory is the default, as the CLI's is.
    for (const record of [mine, theirs])
      expect(record).toMatchObject({ command: script, cwd: work, owner: lead.pane });
    const items = JSON.parse((await cli(lead, ['items', '--json', '--owner', lead.pane])).stdout);
    expect(items.items.map((item: { job: string }) => item.job).sort()).toEqual([job.job, other.job].sort());

    const stopped = (await server.json('stop', { job: job.job })) as JobRecord;
    const stoppedByCli = await cli(lead, ['stop', '--json', other.job]);
    expect(stoppedByCli.code).toBe(0);
    const expected = JSON.parse(stoppedByCli.stdout) as JobRecord;
    expect(Object.keys(stopped).sort()).toEqual(Object.keys(expected).sort());
    expect(stopped).toMatchObject({
      id: job.job,
      reason: expected.reason,
      signal: expected.signal,
      exit_code: null,
    });
    expect(stopped.ended_ms).not.toBeNull();
  }, 90_000);

  it('run queues a ticket when every host is full, as run --json does, and the job starts nowhere', async () => {
    await room(false);
    const server = await mcp(lead);
    const queued = QueuedSchema.parse(await server.json('run', { command: ['true'], timeout: '1h' }));
    const byCli = await cli(lead, ['run', '--json', '--timeout', '1h', '--', 'true']);
    expect(byCli.code).toBe(1);
    QueuedSchema.parse(JSON.parse(byCli.stdout));
    const items = JSON.parse((await cli(lead, ['items', '--json'])).stdout);
    expect(items.items).toEqual([]);
    const [mine, theirs] = items.queue;
    expect(mine.id).toBe(queued.ticket);
    expect({ ...mine, id: theirs.id }).toEqual(theirs);
  }, 60_000);

  it('send writes the record the CLI writes, and inbox lists it as inbox list --json does', async () => {
    const server = await mcp(lead);
    const sent = await server.call('send', {
      target: child.pane,
      message: 'first, \u001b[31mred\u001b[0m',
      kind: 'task',
    });
    const byCli = await cli(lead, ['send', child.pane, '--kind', 'task', '--message', 'second']);
    expect(byCli.code).toBe(0);
    const line = /^sent (m_[a-z0-9]+) to (\S+?)(:|$)/;
    expect(sent.isError).toBe(false);
    // One line for both, the note that an idle target reads it later included.
    const same = (text: string) =>
      text.replace(line, 'sent ID to $2$3').replace(/reads m_[a-z0-9]+/, 'reads ID');
    expect(same(sent.text)).toBe(same(byCli.stdout.trim()));

    const listing = (await (await mcp(child)).json('inbox')) as {
      received: Array<{ id: string; kind: string; text: string; sender: { pane: string } }>;
    };
    expect(listing).toEqual(JSON.parse((await cli(child, ['inbox', 'list', '--json'])).stdout));
    // One test clock stamps both alike; the text is escape-free either way.
    const received = listing.received.map((r) => [r.id, r.kind, r.text, r.sender.pane]);
    expect(received).toContainEqual([line.exec(sent.text)?.[1], 'task', 'first, red', lead.pane]);
    expect(received).toContainEqual([line.exec(byCli.stdout.trim())?.[1], 'task', 'second', lead.pane]);
    expect(received).toHaveLength(2);
  }, 60_000);
});
