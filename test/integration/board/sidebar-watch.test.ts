// The sidebar's file watch (sidebar/watch.ts) on real files: a publication whose directory appears
// after the board opened, rewritten right after its first write, is read each time. chokidar lists
// a new directory before it watches it, so a file made in between would have no watch of its own and
// none of its later writes would be seen; the watch adds such a file when it next looks. The race is
// the machine's to win or lose, so the case runs many rounds, each in a fresh directory.

import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, open as openFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Watching, watchState } from '../../../sidebar/watch.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const open: Watching[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const watching of open.splice(0)) await watching.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function stateDir(): Promise<string> {
  const dir = await tempDir('dogsled-watch-');
  dirs.push(dir);
  return dir;
}

/** Watches `file` (under a directory not made yet) as the sidebar does: the last text read. */
async function follow(file: string): Promise<{ last: () => string | undefined }> {
  let last: string | undefined;
  const watching = await watchState(
    [{ path: file }],
    () =>
      void readFile(file, 'utf8').then(
        (text) => {
          last = text;
        },
        () => undefined,
      ),
    { debounceMs: 15, pollMs: 600_000 },
  );
  open.push(watching);
  return { last: () => last };
}

describe('the sidebar watch', () => {
  it('reads every write of a file whose directory appeared after the watch began', async () => {
    for (let round = 0; round < 15; round++) {
      const state = await stateDir();
      const file = join(state, 'todo-lines', 'owner.json');
      const seen = await follow(file);
      await mkdir(join(state, 'todo-lines'));
      await writeFile(file, `first ${round}`);
      await waitFor(
        `round ${round}: the first write`,
        async () => seen.last() === `first ${round}` || undefined,
        {
          timeoutMs: 10_000,
        },
      );
      // Written in place at once, as a writer that truncates does: read within the settle look.
      await writeFile(file, `second ${round}`);
      await waitFor(
        `round ${round}: the rewrite`,
        async () => seen.last() === `second ${round}` || undefined,
        {
          timeoutMs: 10_000,
        },
      );
      await open.pop()?.close();
    }
  });

  it('reads a file in a watched directory that appeared with it, for entries a target names', async () => {
    const state = await stateDir();
    const peers = join(state, 'peers');
    let reads = 0;
    const watching = await watchState(
      [{ path: peers, matches: (name) => name.endsWith('.json') }],
      () => {
        reads += 1;
      },
      { debounceMs: 15, pollMs: 600_000 },
    );
    open.push(watching);
    await mkdir(peers);
    await writeFile(join(peers, 'big.json'), '{}');
    await waitFor('the entry watched', async () => (watching.watched() >= 3 ? true : undefined), {
      timeoutMs: 10_000,
    });
    const before = reads;
    await writeFile(join(peers, 'big.json'), '{"a":1}');
    await waitFor('a read after the rewrite', async () => (reads > before ? true : undefined), {
      timeoutMs: 10_000,
    });
    expect(reads).toBeGreaterThan(before);
  });

  // A person's editor or Herdr writes theme.toml and config.toml in place: the open truncates, the
  // text follows. chokidar drops a second change of a file within 50 ms of the first (no trailing
  // event), so a read between the two (the refresh comes 15 ms after the first) saw an empty file,
  // and the text written after it was never read. Each gap is tried, from inside that window to past it.
  it.each([20, 30, 45, 70])(
    'reads a file rewritten in place with %i ms between its truncate and its text',
    async (gap) => {
      const state = await stateDir();
      const file = join(state, 'theme.toml');
      await writeFile(file, 'old');
      const seen = await follow(file);
      const handle = await openFile(file, 'w');
      await new Promise((resolve) => setTimeout(resolve, gap));
      await handle.write('new text');
      await handle.close();
      await waitFor(
        'the text written after the truncate',
        async () => seen.last() === 'new text' || undefined,
        {
          timeoutMs: 5_000,
        },
      );
    },
  );
});

describe('the sidebar watch, a directory swapped for a FIFO during its first scan', () => {
  it('is in place within its bound, and a later write is read', async () => {
    // chokidar's first scan of a directory removed while it is read never ends, and it never says it
    // is ready: the watch must not wait on it for ever. The swap is timed against the scan, so it
    // runs many rounds at different delays (without the bound, some round waits for ever).
    for (let round = 0; round < 24; round++) {
      const state = await stateDir();
      const samples = join(state, 'samples.jsonl');
      const host = join(state, 'host.json');
      await mkdir(samples);
      await writeFile(host, 'first');
      let last: string | undefined;
      const began = Date.now();
      const watched = watchState(
        [{ path: host }, { path: samples }],
        () =>
          void readFile(host, 'utf8').then(
            (text) => {
              last = text;
            },
            () => undefined,
          ),
        { debounceMs: 15, pollMs: 300, readyMs: 300 },
      );
      await new Promise((resolve) => setTimeout(resolve, round % 8));
      // At once, as the service's rename would: an await between would let the scan pass by.
      rmSync(samples, { recursive: true });
      expect(spawnSync('mkfifo', [samples]).status).toBe(0);
      const watching = await Promise.race([
        watched,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000)),
      ]);
      expect(watching, `round ${round}: the watch in place`).toBeDefined();
      open.push(watching as Watching);
      expect(Date.now() - began).toBeLessThan(5_000);
      await writeFile(host, `second ${round}`);
      await waitFor(`round ${round}: the write`, async () => last === `second ${round}` || undefined, {
        timeoutMs: 10_000,
      });
      await open.pop()?.close();
    }
  });
});
