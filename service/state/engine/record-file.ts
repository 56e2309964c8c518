// Reading one record file of a directory of records (launches/, and the same shape as jobs/) for
// listings that must never fail or hang: only a regular file is opened (a FIFO named like a record
// would block a reader for ever), and every problem becomes a one-line reason instead of a throw.

import { lstat } from 'node:fs/promises';
import type * as z from 'zod/mini';
import { messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { FileTooLarge, readFdBounded } from './bounded-read.js';
import { NotRegularFile, openRegular } from './regular-file.js';

/** The record, or why not: `reason` null means the file is simply not there (removed meanwhile). */
export type RecordRead<T> = { record: T } | { reason: string | null };

/** Reads `path` as the record whose `id` must match its file name. */
export async function readRecordFile<S extends z.ZodMiniType<{ id: string }>>(
  path: string,
  id: string,
  schema: S,
): Promise<RecordRead<z.output<S>>> {
  let text: string;
  try {
    // lstat: a symlink named like a record is not one. Then opened without blocking and checked
    // again on the handle, so a FIFO put in its place meanwhile is refused, never waited on.
    if (!(await lstat(path)).isFile()) return { reason: 'not a regular file' };
    const handle = await openRegular(path);
    if (handle === undefined) return { reason: null };
    try {
      text = readFdBounded(handle.fd);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NotRegularFile) return { reason: 'not a regular file' };
    if (error instanceof FileTooLarge) return { reason: error.message };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { reason: null };
    return { reason: `cannot read (${code ?? squeezedLine(messageOf(error))})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { reason: `not JSON: ${squeezedLine(messageOf(error))}` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    return {
      reason: `schema: ${squeezedLine(where ? `${where}: ${issue?.message}` : (issue?.message ?? 'invalid'))}`,
    };
  }
  const record = parsed.data as z.output<S>;
  if ((record as { id: string }).id !== id) {
    return {
      reason: `record id "${squeezedLine((record as { id: string }).id)}" does not match its file name`,
    };
  }
  return { record };
}
