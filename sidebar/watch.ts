// Refreshes the sidebar when the files it reads change, through chokidar (which follows writers'
// atomic renames and directories that appear later), bursts folded into one refresh, and a slow poll
// as the fallback where watching is not possible (no inotify room, a network disk) and to move ages
// on. Each watched path starts at its nearest existing ancestor, and everything but the chain down to
// it is ignored, so a state dir (or Herdr's config dir) made after the board opened is followed
// without watching anything else. Job records are watched one by one, only those of the board's
// live rows (a state dir holds every host job's record, and chokidar watches each file it sees).
// chokidar is loaded after the first frame (app.ts), so its load never delays the board's first paint.
// chokidar can lose a path that turns from a directory into something else faster than it looks (it
// keeps watching the directory that is gone); the poll reads such a path all the same. Such a swap in
// the middle of chokidar's first scan can also leave that scan without an end, so the poll starts
// before it and the wait for it is bounded.

import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { SidebarReads } from '../service/actions/sidebar-state.js';

export interface WatchTarget {
  /** A file, or a directory whose entries `matches` names. */
  path: string;
  matches?: (name: string) => boolean;
}

export interface WatchOptions {
  /** Changes closer together than this cost one refresh. */
  debounceMs: number;
  /** A refresh at least this often, watched or not (ages move, watches can miss). */
  pollMs: number;
  /** The longest wait for chokidar's first scan (2 s unless given). */
  readyMs?: number;
}

export interface Watching {
  close(): Promise<void>;
  /** Files watched besides the targets (the job records of live rows); replaces the last set. */
  follow(files: readonly string[]): void;
  /** How many paths chokidar watches now (directories and files). */
  watched(): number;
}

/**
 * chokidar's first scan of a directory removed while it is read (a state file turned from a directory
 * into a FIFO) never ends, and chokidar then never says it is ready: past this, the watch is taken as
 * in place all the same (the paths it still misses are added at the next change, read by the poll).
 */
const READY_MS = 2_000;

/** After a directory appears, when to look for files chokidar may have missed in it. */
const SETTLE_MS = [250, 1_000];

/**
 * After a file changes, when to look at it once more: past chokidar's 50 ms window, inside which it
 * drops a second change of the same file with no trailing event.
 */
const RECHECK_MS = 100;

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What a rewrite changes: another file renamed over it, its length, its times. */
function signature(path: string): string {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch {
    return '';
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The nearest ancestor of `path` (or itself) that exists now. */
function existingAncestor(path: string): string {
  let current = path;
  for (;;) {
    try {
      statSync(current);
      return current;
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

export async function watchState(
  targets: readonly WatchTarget[],
  onChange: () => void,
  options: WatchOptions,
): Promise<Watching> {
  const { watch } = await import('chokidar');
  const followed = new Set<string>();
  const wanted = (path: string): boolean => {
    if (followed.has(path)) return true;
    for (const target of targets) {
      // The target itself and the chain of directories down to it.
      if (path === target.path || target.path.startsWith(path.endsWith(sep) ? path : `${path}${sep}`))
        return true;
      if (target.matches && dirname(path) === target.path && target.matches(basename(path))) return true;
    }
    return false;
  };
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const settles = new Set<NodeJS.Timeout>();
  const rechecks = new Map<string, NodeJS.Timeout>();
  const poke = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (closed) return;
      healWatches();
      onChange();
    }, options.debounceMs);
  };
  const roots = [...new Set(targets.map((target) => existingAncestor(target.path)))];
  const watcher = watch(roots, {
    ignoreInitial: true,
    persistent: false,
    ignored: (path: string) => !wanted(path),
  });
  /**
   * chokidar lists a new directory before it watches it, so a file made in between has no watch and
   * none of its later writes is seen (a publication written right after its directory appears). A
   * target that exists and is not watched is added here, at every change (a few stats: looking
   * only after a directory appeared missed a file in a whole-suite run), and read once more.
   */
  const healWatches = () => {
    const watched = watcher.getWatched();
    const isWatched = (path: string) => watched[dirname(path)]?.includes(basename(path)) ?? false;
    const missing: string[] = [];
    for (const target of targets) {
      if (!exists(target.path)) continue;
      if (!isWatched(target.path)) missing.push(target.path);
      else if (target.matches) {
        const names = new Set(watched[target.path] ?? []);
        for (const name of entries(target.path))
          if (target.matches(name) && !names.has(name)) missing.push(join(target.path, name));
      }
    }
    if (missing.length > 0) watcher.add(missing);
  };
  /**
   * A file written in place (an editor's or Herdr's theme.toml and config.toml: the open truncates,
   * the text follows) changes twice. When the second change falls in chokidar's window it is dropped,
   * and the refresh for the first may have read the empty file: the file is looked at once more
   * after the window and read again if it moved since its change was heard.
   */
  const recheck = (path: string) => {
    const heard = signature(path);
    clearTimeout(rechecks.get(path));
    const timer = setTimeout(() => {
      rechecks.delete(path);
      if (signature(path) !== heard) poke();
    }, RECHECK_MS);
    rechecks.set(path, timer);
  };
  watcher.on('all', (event, path) => {
    poke();
    if ((event === 'change' || event === 'add') && !closed) recheck(path);
    // The window above closes once chokidar has watched the new directory: look again after it.
    if (event !== 'addDir' || closed) return;
    for (const ms of SETTLE_MS) {
      const settle = setTimeout(() => {
        settles.delete(settle);
        poke();
      }, ms);
      settles.add(settle);
    }
  });
  // A watch that fails (no inotify room) leaves the poll to refresh.
  watcher.on('error', () => undefined);
  const poll = setInterval(onChange, options.pollMs);
  poll.unref();
  // Resolved once chokidar has looked at everything (or has not said so in time): a change made
  // before then may have been taken for part of the initial scan, so the caller reads once more after.
  await new Promise<void>((resolve) => {
    const late = setTimeout(resolve, options.readyMs ?? READY_MS);
    late.unref();
    watcher.once('ready', () => {
      clearTimeout(late);
      resolve();
    });
  });
  return {
    async close() {
      closed = true;
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      for (const settle of settles) clearTimeout(settle);
      for (const timer of rechecks.values()) clearTimeout(timer);
      await watcher.close();
    },
    follow(files) {
      const next = new Set(files);
      const gone = [...followed].filter((file) => !next.has(file));
      const added = [...next].filter((file) => !followed.has(file));
      for (const file of gone) followed.delete(file);
      for (const file of added) followed.add(file);
      if (gone.length > 0) watcher.unwatch(gone);
      if (added.length > 0) watcher.add(added);
    },
    watched: () => Object.values(watcher.getWatched()).reduce((sum, names) => sum + names.length, 0),
  };
}

/**
 * What the sidebar reads (its read action names the state files and the peer cache), the theme
 * files and a test's fixture (job records are followed by the app, by row).
 */
export function sidebarTargets(
  reads: SidebarReads,
  themeFiles: readonly string[],
  fixtureHosts: string | undefined,
): WatchTarget[] {
  const files = [...reads.files, ...themeFiles, ...(fixtureHosts ? [fixtureHosts] : [])];
  return [
    ...files.map((path) => ({ path })),
    { path: reads.peers, matches: (name: string) => name.endsWith('.json') },
  ];
}
