// samples.jsonl: one line per tick, appended. Only the service lock's holder writes it (checked by
// `guard` before each write), so no file lock is needed. A torn last line from a crash or a full disk
// is fenced off with a newline, and unreadable lines are dropped at the next trim instead of failing
// the service. Anything but a regular file in its place is refused, never opened blocking.

import { closeSync, fstatSync, readSync, writeFileSync } from 'node:fs';
import type { Sample } from '../../core/placement/host-types.js';
import { needsTrim, trimCutoff } from '../../core/placement/samples.js';
import { LineSplitter } from '../../core/text/line-splitter.js';
import { writeAtomic } from '../../state/engine/atomic-write.js';
import { fsFailure } from '../../state/engine/fs-errors.js';
import { openAppendRegularNow, openRegular, openRegularNow } from '../../state/engine/regular-file.js';

const HEAD_BYTES = 4096;
const CHUNK_BYTES = 256 * 1024;
/** A sample is about 400 bytes; a longer line is torn or foreign, dropped like an unreadable one. */
const SAMPLE_LINE_MAX = 64 * 1024;
const MODE = 0o600;

interface Head {
  size: number;
  firstTs: number | null;
  endsWithNewline: boolean;
}

export async function appendSample(
  file: string,
  sample: Sample,
  now: number,
  guard: () => Promise<void> = async () => {},
): Promise<void> {
  const line = `${JSON.stringify(sample)}\n`;
  const head = readHead(file);
  if (head && head.size > 0 && needsTrim(head.firstTs, now)) {
    await rewriteFrom(file, trimCutoff(now), line, guard);
    return;
  }
  await guard();
  append(file, head && head.size > 0 && !head.endsWithNewline ? `\n${line}` : line);
}

/**
 * A FIFO put in the file's place since readHead looked fails, never blocks (openAppendRegularNow).
 * Synchronous, like readHead: one line into the page cache and 4 KiB read from the head, each tick,
 * cost less than the thread-pool trips of their async calls (regular-file.ts).
 */
function append(file: string, text: string): void {
  const fd = openAppendRegularNow(file, MODE);
  try {
    writeFileSync(fd, text);
  } catch (error) {
    throw fsFailure('write', file, error);
  } finally {
    closeSync(fd);
  }
}

function readHead(file: string): Head | undefined {
  const fd = openRegularNow(file);
  if (fd === undefined) return undefined;
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return { size, firstTs: null, endsWithNewline: true };
    const buffer = Buffer.alloc(Math.min(size, HEAD_BYTES));
    readSync(fd, buffer, 0, buffer.length, 0);
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    const newline = buffer.indexOf(10);
    const firstLine = newline === -1 ? null : buffer.subarray(0, newline).toString('utf8');
    return { size, firstTs: firstLine === null ? null : tsOf(firstLine), endsWithNewline: last[0] === 10 };
  } catch (error) {
    throw fsFailure('read', file, error);
  } finally {
    closeSync(fd);
  }
}

async function rewriteFrom(
  file: string,
  cutoff: number,
  extra: string,
  guard: () => Promise<void>,
): Promise<void> {
  await writeAtomic(file, keptFrom(file, cutoff, extra), { mode: MODE, guard });
}

/**
 * The lines at or after `cutoff`, then `extra`, read a chunk at a time: a week of samples at a short
 * interval is hundreds of megabytes, more than a reader may hold whole (bounded-read.ts).
 */
async function* keptFrom(file: string, cutoff: number, extra: string): AsyncGenerator<string> {
  const handle = await openRegular(file);
  if (handle !== undefined) {
    try {
      const lines = new LineSplitter(SAMPLE_LINE_MAX);
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const kept = (found: Buffer[]) =>
        found
          .map((line) => line.toString('utf8'))
          .filter((line) => {
            const ts = tsOf(line);
            return ts !== null && ts >= cutoff;
          });
      for (;;) {
        const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        const keep = kept(lines.push(chunk.subarray(0, bytesRead)));
        if (keep.length > 0) yield `${keep.join('\n')}\n`;
      }
      const last = lines.end();
      const keep = last === undefined ? [] : kept([last]);
      if (keep.length > 0) yield `${keep[0]}\n`;
    } catch (error) {
      throw fsFailure('read', file, error);
    } finally {
      await handle.close();
    }
  }
  yield extra;
}

function tsOf(line: string): number | null {
  try {
    const value = JSON.parse(line) as { ts_ms?: unknown };
    return typeof value.ts_ms === 'number' ? value.ts_ms : null;
  } catch {
    return null;
  }
}
