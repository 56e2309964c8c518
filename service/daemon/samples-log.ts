// samples.jsonl: one line per tick, appended. Only the service lock's holder writes it, so no file
// lock is needed. A torn last line from a crash is fenced off with a newline, and unreadable lines
// are dropped at the next trim instead of failing the service.

import { open, readFile } from 'node:fs/promises';
import { needsTrim, trimCutoff } from '../core/samples.js';
import type { Sample } from '../state/schemas.js';

const HEAD_BYTES = 4096;

interface Head {
  size: number;
  firstTs: number | null;
  endsWithNewline: boolean;
}

export async function appendSample(file: string, sample: Sample, now: number): Promise<void> {
  const line = `${JSON.stringify(sample)}\n`;
  const head = await readHead(file);
  if (head && head.size > 0 && needsTrim(head.firstTs, now)) {
    await rewriteFrom(file, trimCutoff(now), line);
    return;
  }
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.appendFile(head && head.size > 0 && !head.endsWithNewline ? `\n${line}` : line);
  } finally {
    await handle.close();
  }
}

async function readHead(file: string): Promise<Head | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return { size, firstTs: null, endsWithNewline: true };
    const buffer = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await handle.read(buffer, 0, buffer.length, 0);
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    const newline = buffer.indexOf(10);
    const firstLine = newline === -1 ? null : buffer.subarray(0, newline).toString('utf8');
    return { size, firstTs: firstLine === null ? null : tsOf(firstLine), endsWithNewline: last[0] === 10 };
  } finally {
    await handle.close();
  }
}

async function rewriteFrom(file: string, cutoff: number, extra: string): Promise<void> {
  const kept = (await readFile(file, 'utf8')).split('\n').filter((line) => {
    const ts = tsOf(line);
    return ts !== null && ts >= cutoff;
  });
  const body = kept.length > 0 ? `${kept.join('\n')}\n${extra}` : extra;
  await (await import('write-file-atomic')).default(file, body, { mode: 0o600, fsync: true });
}

function tsOf(line: string): number | null {
  try {
    const value = JSON.parse(line) as { ts_ms?: unknown };
    return typeof value.ts_ms === 'number' ? value.ts_ms : null;
  } catch {
    return null;
  }
}
