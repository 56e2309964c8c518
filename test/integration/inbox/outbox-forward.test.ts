// The peer side of a child whose owner is on another host, through a real `serve`: its close and
// reply go to outbox.json for the owner's service. An outbox.json that is a directory or a FIFO is
// one warning line naming the file, and nothing is lost: the item stays untold until the file is
// usable, then its records are posted once.

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { OutboxSchema } from '../../../service/state/schemas/outbox-schemas.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { killAll, startServe } from '../jobs/job-queue-fixtures.js';

let box: Sandbox;
const running: Parameters<typeof killAll>[0] = [];
const OWNER = 'h_aaaaaaaaaaaa';
const REPLY = "Done \u001b[31mred\u001b[0m: it's $(id) `x`";

beforeEach(async () => {
  box = await sandbox();
  await mkdir(box.state, { recursive: true });
});
afterEach(async () => {
  await killAll(running);
  await box.cleanup();
});

async function items(): Promise<Array<Record<string, unknown>>> {
  return JSON.parse(await readFile(join(box.state, 'items.json'), 'utf8')).items;
}

it("posts a closed child's reply and close to the outbox once, and waits out an outbox.json that is a directory or a FIFO", async () => {
  const now = Date.now();
  const item = {
    id: 'i_peerchild0001',
    kind: 'agent',
    host: 'local',
    pane: 'w1:p1',
    terminal_id: 'term_1',
    owner: null,
    owner_host: OWNER,
    owner_pane: 'w1:p1',
    created_ms: now - 60_000,
    closed_ms: now - 1_000,
    close_reason: 'done',
    job: null,
    ticket: null,
    name: 'far;child',
    reply: REPLY,
  };
  await writeFile(join(box.state, 'items.json'), JSON.stringify({ version: 1, items: [item] }));
  const outbox = join(box.state, 'outbox.json');
  await mkdir(outbox);
  const serve = startServe({ ...box.env, DOGSLED_TEST: '1' }, running);
  await waitFor(
    'the warning about the directory',
    async () => (serve.output().includes('outbox.json is a directory') ? true : undefined),
    { timeoutMs: 30_000 },
  );
  expect(serve.output()).toMatch(/^dogsled serve: outbox: outbox\.json is a directory, not a regular file$/m);
  expect((await items())[0]?.owner_told_ms ?? null).toBeNull();

  await rm(outbox, { recursive: true });
  execFileSync('mkfifo', [outbox]);
  await waitFor(
    'the warning about the FIFO',
    async () => (serve.output().includes('outbox.json is a FIFO') ? true : undefined),
    { timeoutMs: 30_000 },
  );
  expect((await items())[0]?.owner_told_ms ?? null).toBeNull();

  await rm(outbox);
  const told = await waitFor(
    'the close told',
    async () => ((await items())[0]?.owner_told_ms != null ? (await items())[0] : undefined),
    { timeoutMs: 30_000 },
  );
  expect(told).toMatchObject({ owner: null, owner_pane: 'w1:p1' });
  const records = OutboxSchema.parse(JSON.parse(await readFile(outbox, 'utf8'))).records;
  expect(records.map((r) => r.ref)).toEqual([`reply:${item.id}`, `closed:${item.id}`]);
  expect(records.every((r) => r.owner_host === OWNER && r.item === item.id)).toBe(true);
  expect(records[0]?.message).toMatchObject({
    owner_pane: 'w1:p1',
    record: { kind: 'reply', ref: `reply:${item.id}`, sender: { name: 'far;child', pane: 'w1:p1' } },
  });
  expect(records[0]?.message?.record.text).toContain("it's $(id) `x`");
  expect(records[1]?.closed).toEqual({ reason: 'done', reply: REPLY });
});
