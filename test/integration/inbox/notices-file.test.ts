// notices.json, the peers a sender here messaged with `send --host` (the service takes their outbox
// for a day): noted once per peer with its time renewed, expired entries dropped, and a file that is
// a directory or a FIFO refused in one line naming it, never opened (a FIFO would hang the reader).

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { NOTICE_AWAIT_MS } from '../../../service/core/inbox/outbox-rule.js';
import { awaitedPeers, awaitNotices } from '../../../service/inbox/outbox.js';
import { statePaths } from '../../../service/state/paths.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let now = 1_000_000;
const io = () => ({ paths: statePaths(dir), now: () => now, warn: () => undefined });

beforeEach(async () => {
  dir = await tempDir('dogsled-notices-');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('notes each peer once, renews it, and forgets it a day later', async () => {
  expect(await awaitedPeers(io())).toEqual([]);
  await awaitNotices(io(), 'big');
  now += 1_000;
  await awaitNotices(io(), 'small');
  now += 1_000;
  await awaitNotices(io(), 'big');
  expect((await awaitedPeers(io())).sort()).toEqual(['big', 'small']);
  const file = JSON.parse(await readFile(join(dir, 'notices.json'), 'utf8'));
  expect(file.peers).toEqual([
    { host: 'small', until_ms: 1_001_000 + NOTICE_AWAIT_MS },
    { host: 'big', until_ms: 1_002_000 + NOTICE_AWAIT_MS },
  ]);
  now = 1_001_000 + NOTICE_AWAIT_MS;
  expect(await awaitedPeers(io())).toEqual(['big']);
  now += 1_000;
  expect(await awaitedPeers(io())).toEqual([]);
});

it('refuses a notices.json that is a directory or a FIFO in one line, and leaves it', async () => {
  const file = join(dir, 'notices.json');
  await mkdir(file);
  await expect(awaitedPeers(io())).rejects.toThrow(/^notices\.json is a directory, not a regular file$/);
  await expect(awaitNotices(io(), 'big')).rejects.toThrow(
    /^notices\.json is a directory, not a regular file$/,
  );
  await rm(file, { recursive: true });
  execFileSync('mkfifo', [file]);
  await expect(awaitedPeers(io())).rejects.toThrow(/^notices\.json is a FIFO, not a regular file$/);
  await expect(awaitNotices(io(), 'big')).rejects.toThrow(/^notices\.json is a FIFO, not a regular file$/);
  expect(execFileSync('stat', ['-c', '%F', file], { encoding: 'utf8' }).trim()).toBe('fifo');
});
