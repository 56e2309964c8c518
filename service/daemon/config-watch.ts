// `serve` follows its policy file and the profiles without a restart: chokidar watches config.toml
// and the profiles directory (loaded here only, on the service's first start, never by a command
// that starts often: test/unit/tooling/hot-start-up.test.ts). A changed config.toml is loaded and, when it
// loads, becomes the policy every worker reads (the same object, changed in place, since the
// service's IO was copied into each worker); one that no longer loads keeps the last good policy
// and says why, and a broken profile says why, in host.json's errors, which `status` shows. Launches
// read a profile when they start, so a fixed profile needs nothing more.

import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { listProfiles, PROFILE_FILE, profilesDir } from '../agents/profiles.js';
import { messageOf } from '../core/common/errors.js';
import { squeezedLine } from '../core/text/clean.js';
import type { Config } from '../state/config/config.js';
import { loadConfig } from '../state/config/config.js';
import type { HostIO } from '../state/io.js';
import type { ConfigLocation } from '../state/paths.js';

/** Editors write a file in steps (truncate, write, rename): one reload once they settle. */
const SETTLE_MS = 150;
/**
 * How often the files' stats are compared with those of the last reload: a watch can miss a change
 * (a path turned from a file into a directory and back faster than chokidar looks), and a missed
 * one must not leave the service on an old policy until the next edit. A few stats per look.
 */
const LOOK_MS = 5_000;

export interface ConfigWatchIO extends HostIO {
  /** Where the policy came from (`--config`, `$DOGSLED_CONFIG`, else the default path). */
  configFile: ConfigLocation;
}

export interface ConfigWatch {
  /** Resolves once the files are watched; a reload after that is never missed. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watches until `signal` aborts or close(). `report(lane, problem)` receives each lane's problem
 * (`config`, `profiles`), or undefined once it is gone.
 */
export function watchConfig(
  io: ConfigWatchIO,
  signal: AbortSignal,
  report: (lane: 'config' | 'profiles', problem: string | undefined) => void,
): ConfigWatch {
  const { path, explicit } = io.configFile;
  const profiles = profilesDir(io.home);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const watchers: FSWatcher[] = [];
  let seen: string | undefined;
  let look: ReturnType<typeof setInterval> | undefined;
  const reload = async (): Promise<void> => {
    seen = await filesSeen(path, profiles);
    try {
      replacePolicy(io.config, await loadConfig(path, explicit, io.home));
      report('config', undefined);
    } catch (error) {
      report(
        'config',
        `${squeezedLine(messageOf(error), 400)}; the service keeps the last policy that loaded`,
      );
    }
    try {
      const broken = (await listProfiles(profiles)).filter((entry) => entry.broken !== null);
      const lines = broken.map((entry) => `profile ${entry.name}: broken: ${entry.broken}`);
      report('profiles', lines.length === 0 ? undefined : squeezedLine(lines.join('; '), 800));
    } catch (error) {
      report('profiles', squeezedLine(messageOf(error), 400));
    }
  };
  // One reload at a time, in order: a slow one never lands after the one that followed it.
  let reloads = Promise.resolve();
  const queueReload = (): Promise<void> => {
    reloads = reloads.then(reload);
    return reloads;
  };
  const soon = (): void => {
    if (closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) void queueReload();
    }, SETTLE_MS);
  };
  const ready = (async () => {
    const { watch } = await import('chokidar');
    if (closed) return;
    // config.toml through its directory: a watch of the file itself loses track of a file replaced
    // by a directory and back; the directory's sees every name come and go.
    const file = resolve(path);
    const configs = watch(dirname(file), { ignoreInitial: true, depth: 0 });
    const profileFiles = watch(profiles, { ignoreInitial: true, depth: 2 });
    watchers.push(configs, profileFiles);
    configs.on('all', (_event, changed) => {
      if (resolve(changed) === file) soon();
    });
    profileFiles.on('all', soon);
    for (const one of watchers) {
      // A watch that fails (too many watched files) leaves the policy as it is, and says so.
      one.on('error', (error) => report('config', `cannot watch ${path}: ${squeezedLine(messageOf(error))}`));
    }
    await Promise.all(watchers.map((one) => new Promise<void>((done) => one.once('ready', () => done()))));
    // The profiles as they are at start: a broken one is reported without waiting for a change.
    await queueReload();
    if (closed) return;
    look = setInterval(() => {
      void filesSeen(path, profiles).then((now) => {
        if (now !== seen && timer === undefined) soon();
      });
    }, LOOK_MS);
    look.unref();
  })();
  const close = async (): Promise<void> => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    if (look !== undefined) clearInterval(look);
    await ready.catch(() => undefined);
    await Promise.all(watchers.map((one) => one.close()));
  };
  signal.addEventListener('abort', () => void close(), { once: true });
  return { ready, close };
}

/** What a path is now, as a stat tells it (kind, inode, size, mtime), or why it has none. */
async function statOf(path: string): Promise<string> {
  try {
    const s = await stat(path);
    const kind = s.isFile() ? 'f' : s.isDirectory() ? 'd' : 'o';
    return `${kind}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (error) {
    return `!${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

/** config.toml's stat and each profile file's, as one text: any change to them changes it. */
async function filesSeen(config: string, profiles: string): Promise<string> {
  const names = await readdir(profiles).catch(() => [] as string[]);
  const parts = await Promise.all([
    statOf(config),
    statOf(profiles),
    ...names.sort().map((name) => statOf(join(profiles, name, PROFILE_FILE))),
  ]);
  return parts.join(' ');
}

/** Makes `current` the `next` policy in place: every worker holds this one object. */
function replacePolicy(current: Config, next: Config): void {
  Object.assign(current, next);
}
