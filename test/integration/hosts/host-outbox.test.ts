// `dogsled host outbox claim|ack` as an owner's service runs it on a peer: a claim leases only that
// owner's records, oldest first, and offers them again once the lease ended (the claimer died); an
// ack removes only that owner's. outbox.json that is a directory or a FIFO, or is not JSON, and
// hostile arguments: one line, exit 2, nothing lost.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxSchema } from '../../../service/state/schemas/outbox-schemas.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

const NOW = 1_900_000_000_000;
const ME = 'h_aaaaaaaaaaaa';
const OTHER = 'h_bbbbbbbbbbbb';

let box: Sandbox;
const outboxFile = () => join(box.state, 'outbox.json');

function record(id: string, owner: string, created: number) {
  return {
    id,
    owner_host: owner,
    item: `i_${id.slice(2)}`,
    ref: `closed:i_${id.slice(2)}`,
    created_ms: created,
    attempts: 0,
    lease_until_ms: null,
    closed: { reason: 'done', reply: "it's $(id) \u001b[31m" },
  };
}

function host(args: string[], at = NOW) {
  return runCli(['host', 'outbox', ...args], {
    ...box.env,
    DOGSLED_TEST: '1',
    DOGSLED_TEST_NOW_MS: String(at),
  });
}

beforeEach(async () => {
  box = await sandbox();
  await mkdir(box.state, { recursive: true });
});
afterEach(async () => box.cleanup());

describe('host outbox', () => {
  it("claims only the owner's records, leases them, offers them again after the lease, and acks only its own", async () => {
    const records = [
      record('o_second', ME, NOW - 10),
      record('o_first', ME, NOW - 20),
      record('o_theirs', OTHER, NOW - 30),
    ];
    await writeFile(outboxFile(), JSON.stringify({ version: 1, records }));
    const first = await host(['claim', ME, '5000']);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const claimed = JSON.parse(first.stdout).records;
    expect(claimed.map((r: { id: string }) => r.id)).toEqual(['o_first', 'o_second']);
    expect(claimed[0]).toMatchObject({ lease_until_ms: NOW + 5000, attempts: 1 });
    expect(claimed[0].closed.reply).toBe("it's $(id) \u001b[31m");
    // Leased: nothing for a second claimer until the lease ends, then the same records again.
    expect(JSON.parse((await host(['claim', ME, '5000'], NOW + 4999)).stdout).records).toEqual([]);
    const again = JSON.parse((await host(['claim', ME, '5000'], NOW + 5000)).stdout).records;
    expect(again.map((r: { id: string; attempts: number }) => [r.id, r.attempts])).toEqual([
      ['o_first', 2],
      ['o_second', 2],
    ]);
    const acked = await host(['ack', ME, 'o_first', 'o_second', 'o_theirs']);
    expect(JSON.parse(acked.stdout)).toEqual({ removed: 2 });
    const left = OutboxSchema.parse(JSON.parse(await readFile(outboxFile(), 'utf8'))).records;
    expect(left.map((r) => r.id)).toEqual(['o_theirs']);
  });

  it('refuses an outbox.json that is a directory or a FIFO in one line, and leaves it', async () => {
    await mkdir(outboxFile());
    const dir = await host(['claim', ME]);
    expect(dir).toMatchObject({ code: 2, stdout: '' });
    expect(dir.stderr).toBe('dogsled: host: outbox.json is a directory, not a regular file\n');
    expect((await stat(outboxFile())).isDirectory()).toBe(true);

    await box.cleanup();
    box = await sandbox();
    await mkdir(box.state, { recursive: true });
    execFileSync('mkfifo', [outboxFile()]);
    const fifo = await host(['ack', ME, 'o_x']);
    expect(fifo).toMatchObject({ code: 2, stdout: '' });
    expect(fifo.stderr).toBe('dogsled: host: outbox.json is a FIFO, not a regular file\n');
    expect((await stat(outboxFile())).isFIFO()).toBe(true);
  });

  it('moves an outbox.json that is not JSON aside with a warning, and keeps it', async () => {
    await writeFile(outboxFile(), '{"version": 1, "records": [');
    const result = await host(['claim', ME]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ records: [] });
    expect(result.stderr).toMatch(/outbox\.json/);
    const aside = (await readdir(box.state)).filter((name) => name.startsWith('outbox.json.bad-'));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(box.state, aside[0] as string), 'utf8')).toBe('{"version": 1, "records": [');
  });

  it.each([
    [['claim', '$(id)'], /^dogsled: host outbox: "\$\(id\)" is not a host identity\n$/],
    [['claim', 'h_\u001b[31maaaaaaaaaa'], /^dogsled: host outbox: "h_aaaaaaaaaa" is not a host identity\n$/],
    [['claim', ME, '0'], /^dogsled: host outbox claim: lease "0" is not 1 to 3600000 ms\n$/],
    [['claim', ME, '1e9999'], /^dogsled: host outbox claim: lease "1e9999" is not 1 to 3600000 ms\n$/],
    [['drop', ME], /^dogsled: host outbox: expected claim or ack, got "drop"\n$/],
  ])('refuses %j in one line and writes nothing', async (args, message) => {
    const result = await host(args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(message);
    expect(await stat(outboxFile()).catch(() => undefined)).toBeUndefined();
  });
});
