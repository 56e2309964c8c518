// Waking up when a job's files change, without a busy loop: fs.watch on the jobs dir (records are
// replaced by rename, and the log may not exist yet, so the dir is what stays watchable) plus a
// polling fallback, because fs.watch can miss events or be unavailable (inotify limits, some file
// systems). Whoever waits re-reads the files after each wake; a wake says only "look again".

import { type FSWatcher, watch } from 'node:fs';

/** How often a waiter looks again when no file event arrives. */
export const POLL_MS = 200;

export class JobChanges {
  private watcher: FSWatcher | undefined;
  private pending = false;
  private wake: (() => void) | undefined;
  private readonly names: ReadonlySet<string>;

  constructor(
    dir: string,
    id: string,
    private readonly pollMs = POLL_MS,
  ) {
    this.names = new Set([`${id}.json`, `${id}.log`]);
    try {
      this.watcher = watch(dir, { persistent: false }, (_event, name) => this.onEvent(name));
      // An error after start (the dir was removed) leaves polling to carry on.
      this.watcher.on('error', () => this.closeWatcher());
    } catch {
      this.watcher = undefined;
    }
  }

  /** Resolves at the next change to the job's files, after the poll interval, or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<void> {
    if (this.pending || signal?.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.wake = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      signal?.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  close(): void {
    this.closeWatcher();
    this.wake?.();
  }

  private onEvent(name: string | Buffer | null): void {
    // A null name means the platform could not say which file changed: treat it as ours. Only the
    // record (replaced by a rename onto ID.json) and the log (appended to) say anything to a waiter:
    // a writer's lock directory and temp file (ID.json.lock, ID.json.tmp-…) woke it for nothing, some
    // five times per record write, each a read of the record while the job's supervisor works.
    if (name !== null && !this.names.has(String(name))) return;
    if (this.wake) this.wake();
    else this.pending = true;
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
