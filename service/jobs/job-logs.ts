// A job's output, jobs/ID.log, read as the raw bytes exec captured. It is only files, so it works
// after the job's tab closed and without Herdr. Following keeps copying new bytes until the record
// has ended and the log is drained: exec writes the final record only after the child's output is in
// the log, so bytes read after seeing an ended record are the last ones.

import { closeSync, readSync } from 'node:fs';
import type { JobRecord } from '../core/jobs/job-types.js';
import { openRegularNow } from '../state/engine/regular-file.js';
import type { StateIO } from '../state/io.js';
import { jobLogPath, readJobRecord } from '../state/records/job-records.js';
import { JobChanges } from './job-file-watch.js';
import { reconcileJob } from './reconcile.js';

/**
 * Receives the log's bytes in order; a returned promise is awaited (backpressure). The chunk is lent:
 * it is reused once the write returns, or once its promise resolves, so a writer that keeps it copies it.
 */
export type LogWrite = (chunk: Uint8Array) => void | Promise<void>;

export interface FollowOptions {
  write: LogWrite;
  /** Aborting it stops following and rejects with the signal's reason; the job is untouched. */
  signal?: AbortSignal;
}

const CHUNK_BYTES = 1024 * 1024;

/** Copies the whole log of job `id` once; a job with no log yet has printed nothing. */
export async function copyJobLog(io: StateIO, id: string, write: LogWrite): Promise<JobRecord> {
  const record = await readJobRecord(io.paths, id);
  const log = new LogReader(jobLogPath(io.paths, id));
  try {
    await log.drain(write);
  } finally {
    log.close();
  }
  return record;
}

/**
 * Copies the log of job `id` from its start and keeps copying new bytes until the record has ended
 * and every byte is written, then resolves with the final record. A created job whose log does not
 * exist yet is waited for. A job whose wrapper died is reconciled (ended `wrapper lost`), so the
 * follow ends. Unknown id: DogsledError `unknown job "x"`.
 */
export async function followJobLog(io: StateIO, id: string, options: FollowOptions): Promise<JobRecord> {
  const { write, signal } = options;
  const log = new LogReader(jobLogPath(io.paths, id));
  const changes = new JobChanges(io.paths.jobs, id);
  try {
    for (;;) {
      signal?.throwIfAborted();
      // The record is read before the drain: once it says ended, the drain that follows is the last.
      let record = await readJobRecord(io.paths, id);
      if (record.ended_ms === null) record = await reconcileJob(io, record);
      await log.drain(write, signal);
      if (record.ended_ms !== null) return record;
      await changes.next(signal);
    }
  } finally {
    changes.close();
    log.close();
  }
}

/**
 * Reads a file that may not exist yet and may keep growing, from where the last read stopped.
 * Synchronously, a chunk at a time with the write awaited between: a local file's read answers at
 * once, and the follow of a `run --wait` then loads no node:fs/promises (nor its thread pool).
 */
class LogReader {
  private fd: number | undefined;
  private offset = 0;
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);

  constructor(private readonly path: string) {}

  /** Writes every byte between the last read and the current end of the file. */
  async drain(write: LogWrite, signal?: AbortSignal): Promise<void> {
    const fd = this.open();
    if (fd === undefined) return;
    for (;;) {
      signal?.throwIfAborted();
      const bytesRead = readSync(fd, this.buffer, 0, CHUNK_BYTES, this.offset);
      if (bytesRead === 0) return;
      this.offset += bytesRead;
      await write(this.buffer.subarray(0, bytesRead));
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number | undefined {
    if (this.fd !== undefined) return this.fd;
    // Only a regular file: a FIFO or device in the log's place is refused, never read forever.
    this.fd = openRegularNow(this.path);
    return this.fd;
  }
}
