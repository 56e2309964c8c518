import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, test } from 'vitest';
import * as z from 'zod/mini';
import { DogsledError } from '../../../service/core/common/errors.js';
import { breakIfAbandoned, LOCK_STALE_MS, withLock } from '../../../service/state/engine/lock.js';
import { updateState } from '../../../service/state/engine/store.js';
import { tempDir } from '../../helpers/tree.js';

const CounterSchema = z.looseObject({ count: z.number() });
const ctx = { now: () => 1_700_000_000_000, warn: () => {} };

describe('withLock', () => {
  test('times out with one line naming the file and the wait', async () => {
    const file = join(await tempDir(), 'placements.json');
    let letGo = (): void => {};
    const holding = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let entered = (): void => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const holder = withLock(file, async () => {
      entered();
      await holding;
    });
    await inside;
    const waiter = withLock(file, () => 'never', { timeoutMs: 300 });
    await expect(waiter).rejects.toThrow(
      new DogsledError(
        `lock on placements.json: timed out after 300ms: pid ${process.pid} holds it and is still running (stopped or stuck?)`,
      ),
    );
    await expect(waiter).rejects.toBeInstanceOf(DogsledError);
    letGo();
    await holder;
    expect(await withLock(file, () => 'free again')).toBe('free again');
  });

  test('lets waiters in one process take turns', async () => {
    const file = join(await tempDir(), 'counter.json');
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withLock(file, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  test('a lock lost while held becomes a DogsledError and the record is not written', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    await writeFile(file, JSON.stringify({ count: 1 }));
    // Someone removes our lock dir; proper-lockfile notices on its next refresh (stale / 2 = 5 s).
    // A second lock taken after ours and treated alike is refreshed after ours: once it has noticed
    // its loss, ours has been refreshed too, and the write comes after that.
    let plain: Promise<string> = Promise.resolve('not started');
    const update = updateState(file, CounterSchema, ctx, async (current) => {
      await rm(`${file}.lock`, { recursive: true });
      let noticed: () => void = () => undefined;
      const refreshed = new Promise<void>((resolve) => {
        noticed = resolve;
      });
      plain = withLock(join(dir, 'other.json'), async (held) => {
        await rm(join(dir, 'other.json.lock'), { recursive: true });
        await new Promise<void>((resolve) => held.signal.addEventListener('abort', () => resolve()));
        noticed();
        return 'done';
      });
      plain.catch(() => noticed());
      await refreshed;
      return { result: null, next: { count: (current?.count ?? 0) + 1 } };
    });
    const updated = (await Promise.allSettled([update]))[0];
    const locked = (await Promise.allSettled([plain]))[0];
    expect(updated.status === 'rejected' && updated.reason).toBeInstanceOf(DogsledError);
    expect(updated.status === 'rejected' && updated.reason.message).toMatch(
      /^lock on counter\.json: lost while held \(/,
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 1 });
    expect(locked.status === 'rejected' && locked.reason.message).toMatch(
      /^lock on other\.json: lost while held/,
    );
  });
});

describe('breaking stale locks', () => {
  it('leaves a fresh lock alone and removes one that stopped being refreshed', async () => {
    const dir = await tempDir();
    const file = join(dir, 'f.json');
    await mkdir(`${file}.lock`);
    expect((await breakIfAbandoned(file)).retry).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['f.json.lock']);
    const old = new Date(Date.now() - LOCK_STALE_MS - 1_000);
    await utimes(`${file}.lock`, old, old);
    expect((await breakIfAbandoned(file)).retry).toBe(true);
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('waits while another breaker holds the token, and clears a token its crashed breaker left', async () => {
    const dir = await tempDir();
    const file = join(dir, 'f.json');
    const old = new Date(Date.now() - LOCK_STALE_MS - 1_000);
    await mkdir(`${file}.lock`);
    await utimes(`${file}.lock`, old, old);
    await writeFile(`${file}.lock-break`, '');
    expect((await breakIfAbandoned(file)).retry).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['f.json.lock', 'f.json.lock-break']);
    await utimes(`${file}.lock-break`, old, old);
    expect((await breakIfAbandoned(file)).retry).toBe(false);
    expect((await breakIfAbandoned(file)).retry).toBe(true);
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});
