// The pace of one service worker: a pass, then a pause of `paceMs` that a poke (a watched file
// changed) cuts short, until the signal aborts. A pass that throws is reported once per distinct
// message and retried at the next pace, so a worker never stops the service or floods its log.
// The pauses are unref'd: a worker alone never keeps the process alive after the service ended.

import { watch } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../core/common/errors.js';

export interface LoopOptions {
  /** Names the worker in warnings: `dogsled serve: admission: ...`. */
  name: string;
  paceMs: number;
  /** Pokes closer together than this wait for it, so a burst of file changes costs one pass. */
  minGapMs: number;
  signal: AbortSignal;
  warn: (line: string) => void;
  pass: () => Promise<void>;
  /** A directory and the file names in it whose changes start a pass early. */
  watch?: { dir: string; files: readonly string[] };
  /** Receives the loop's poke, for a wake-up that is not a file change (a socket). */
  onPoke?: (poke: () => void) => void;
  /**
   * A poke takes effect this long after it arrives, and the pokes in between are one: for a poke
   * sent by a short-lived caller on its way out, so the pass does not compete with it for the CPU.
   */
  settleMs?: number;
}

export async function runLoop(options: LoopOptions): Promise<void> {
  const { signal } = options;
  let poked: (() => void) | undefined;
  let pending = false;
  const poke = () => {
    pending = true;
    poked?.();
  };
  let settling: ReturnType<typeof setTimeout> | undefined;
  const settledPoke = () => {
    if (settling !== undefined) return;
    settling = setTimeout(() => {
      settling = undefined;
      poke();
    }, options.settleMs);
    settling.unref();
  };
  const watcher = watchFiles(options.watch, poke);
  options.onPoke?.(options.settleMs ? settledPoke : poke);
  let lastError = '';
  try {
    while (!signal.aborted) {
      pending = false;
      try {
        await options.pass();
        lastError = '';
      } catch (error) {
        // A pass cut short by the stop (its calls to peers end with it) has nothing to report.
        if (signal.aborted) break;
        const message = messageOf(error);
        if (message !== lastError) options.warn(`dogsled serve: ${options.name}: ${message}`);
        lastError = message;
      }
      await pause(options.minGapMs, signal);
      if (pending || signal.aborted) continue;
      const wait = new AbortController();
      poked = () => wait.abort();
      await pause(Math.max(0, options.paceMs - options.minGapMs), AbortSignal.any([signal, wait.signal]));
      poked = undefined;
    }
  } finally {
    clearTimeout(settling);
    watcher?.close();
  }
}

/** Resolves after `ms` or when the signal aborts; never keeps the process alive by itself. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal, ref: false }).catch(() => undefined);
}

/** Watches a directory (files there are replaced by rename, so the file itself cannot be watched). */
function watchFiles(spec: LoopOptions['watch'], poke: () => void): { close: () => void } | undefined {
  if (!spec) return undefined;
  try {
    const watcher = watch(spec.dir, { persistent: false }, (_event, filename) => {
      if (filename !== null && spec.files.includes(String(filename))) poke();
    });
    // Without inotify room the pace alone drives the worker; that is slower, never wrong.
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return undefined;
  }
}
