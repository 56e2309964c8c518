// Refreshes the sidebar when the files it reads change: fs.watch on their directories (state files
// are replaced by rename, so the file itself cannot be watched), bursts folded into one refresh, and
// a slow poll as the fallback where watching is not possible (no inotify room, a network disk, a
// directory that does not exist yet: it is watched once it appears). Chosen over chokidar, which
// adds start-up time and wraps the same fs.watch on Linux and macOS.

import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { StatePaths } from '../service/state/paths.js';
import { idHash } from '../service/state/records/sidebar-files.js';

export interface WatchTarget {
  dir: string;
  /** Which names in `dir` matter; all when omitted. */
  matches?: (name: string) => boolean;
}

export interface WatchOptions {
  /** Changes closer together than this cost one refresh. */
  debounceMs: number;
  /** A refresh at least this often, watched or not (ages move, watches can miss). */
  pollMs: number;
}

export interface Watching {
  close(): void;
  /** How many directories are watched now (the rest are polled). */
  watched(): number;
}

export function watchState(
  targets: readonly WatchTarget[],
  onChange: () => void,
  options: WatchOptions,
): Watching {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const poke = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, options.debounceMs);
  };
  const attach = () => {
    for (const target of targets) {
      if (watchers.has(target.dir)) continue;
      try {
        const watcher = watch(target.dir, { persistent: false }, (_event, name) => {
          if (name === null || !target.matches || target.matches(String(name))) poke();
        });
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(target.dir);
        });
        watchers.set(target.dir, watcher);
      } catch {
        // Missing or unwatchable: the poll covers it, and the next poll tries again.
      }
    }
  };
  attach();
  const poll = setInterval(() => {
    attach();
    onChange();
  }, options.pollMs);
  poll.unref();
  return {
    close() {
      closed = true;
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
    watched: () => watchers.size,
  };
}

/** What the sidebar reads: the state files, job records, its owner's todos, Herdr's config, a fixture. */
export function sidebarTargets(
  paths: StatePaths,
  owner: string,
  herdrConfig: string,
  fixtureHosts: string | undefined,
): WatchTarget[] {
  const todos = `${idHash(owner)}.json`;
  const files = ['host.json', 'items.json', 'queue.json', 'samples.jsonl'];
  return [
    { dir: paths.dir, matches: (name) => files.includes(name) },
    { dir: paths.jobs, matches: (name) => name.endsWith('.json') },
    { dir: paths.todoLines, matches: (name) => name === todos },
    { dir: dirname(herdrConfig), matches: (name) => name === basename(herdrConfig) },
    ...(fixtureHosts
      ? [{ dir: dirname(fixtureHosts), matches: (name: string) => name === basename(fixtureHosts) }]
      : []),
  ];
}
