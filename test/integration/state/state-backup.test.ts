// A damaged queue.json or items.json (a torn copy, an editor accident, a bad disk block) loses
// nothing a command acknowledged: the tickets `place` printed and the open items come back from
// the last good generation, with one warning per file naming both files.

import { readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { appendItems } from '../jobs/job-queue-fixtures.js';

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await box.cleanup();
});

/** Cuts a state file in half, as a torn copy would. */
async function damage(name: string): Promise<void> {
  const path = join(box.state, name);
  const size = (await readFile(path)).length;
  await truncate(path, Math.floor(size / 2));
}

describe('a damaged queue.json or items.json', () => {
  it('gives back every acknowledged ticket and item, warning once per file', async () => {
    const tickets: string[] = [];
    for (let i = 0; i < 3; i++) {
      // No service runs: each place is queued, and the ticket it prints is acknowledged.
      const queued = await runCli(['place', '--json'], box.env);
      expect(queued.code).toBe(1);
      tickets.push(JSON.parse(queued.stdout).ticket);
    }
    await appendItems(box, [itemFixture({ id: 'i_aaaaaaaaaaaa' }), itemFixture({ id: 'i_bbbbbbbbbbbb' })]);
    await damage('queue.json');
    await damage('items.json');

    const status = await runCli(['status', '--json'], box.env);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout);
    expect(report.queue.map((t: { id: string }) => t.id)).toEqual(tickets);
    expect(report.items.map((i: { id: string }) => i.id).sort()).toEqual([
      'i_aaaaaaaaaaaa',
      'i_bbbbbbbbbbbb',
    ]);
    const warnings = status.stderr.trim().split('\n').sort();
    expect(warnings).toEqual([
      expect.stringMatching(
        /^dogsled: warning: items\.json was corrupt \(not JSON: .*\); moved to items\.json\.bad-\d+; recovered from items\.json\.prev$/,
      ),
      expect.stringMatching(
        /^dogsled: warning: queue\.json was corrupt \(not JSON: .*\); moved to queue\.json\.bad-\d+; recovered from queue\.json\.prev$/,
      ),
    ]);

    // Repaired in place: the next command reads it quietly and adds to it.
    const next = await runCli(['place', '--json'], box.env);
    expect(next.code).toBe(1);
    expect(next.stderr).not.toContain('warning');
    const after = JSON.parse((await runCli(['status', '--json'], box.env)).stdout);
    expect(after.queue.map((t: { id: string }) => t.id)).toEqual([
      ...tickets,
      JSON.parse(next.stdout).ticket,
    ]);
  });
});
