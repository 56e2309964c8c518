// Loads a hot command's bundle (dist/hot/NAME.cjs) through V8's code cache, which Node 20 has for
// scripts but not for ES modules: the bundle is compiled as a CommonJS function in a vm.Script with
// the cache of an earlier run (code-cache/NAME-HASH.bin in the state dir), so neither the bundle nor the
// functions its command ran are parsed and compiled again. A missing, stale or refused cache costs
// a plain compile, and a fresh cache is written after a run that succeeds.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import {
  type CodeCacheWriter,
  codeCacheFile,
  readCodeCache,
  stateDirFrom,
} from '../service/actions/hot-code-cache.js';
import { mark } from '../service/actions/timing-marks.js';
import type { HotRun } from './hot/entry.js';

// Node's own CommonJS wrapper; the cache is of exactly this text around the bundle.
const HEAD = '(function (exports, require, module, __filename, __dirname) {';
const TAIL = '\n})';

/** The first line of every hot bundle: the hash of the rest, written by scripts/build.mjs (after HEAD). */
const BUNDLE_HASH = /\/\/ dogsled-bundle (\S+)\n/y;

/**
 * The memory every read of a start-up lands in: the dispatcher's source and cache, then its
 * bundle's. Each fresh page a read touches is a page fault, so the bundle's reads reuse the pages
 * the dispatcher's touched, and each read's pages the next's; what a read returns is used (copied
 * into V8's heap, or deserialised) before the next read. Untouched pages cost nothing.
 */
let scratch: Buffer | undefined;
/** HEAD and TAIL's bytes (ASCII), set around each bundle's text by Uint8Array's own set(). */
let wrapper: Uint8Array | undefined;
const SCRATCH_BYTES = 1024 * 1024;

function scratchOf(size: number): Buffer {
  if (scratch === undefined || scratch.length < size)
    scratch = Buffer.allocUnsafe(Math.max(size, SCRATCH_BYTES));
  return scratch;
}

export interface HotBundle<R = HotRun> {
  /** What the bundle exports as `run`: a command's HotRun, or the dispatcher's (hot/dispatch.ts). */
  run: R;
  /**
   * Writes the code cache when this run had none (or V8 refused it) and exited 0 or 1, once a run
   * (a second call does nothing); never throws.
   */
  remember: (exitCode: number) => Promise<void>;
}

/**
 * `dist` is the directory of the built entry (a path): the bundle is hot/NAME.cjs in it; its code cache is
 * kept as `cacheName` (a path of a bundle that serves several, fast-path.ts's LeanRun).
 */
export function loadHot<R = HotRun>(
  dist: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  cacheName = name,
): HotBundle<R> {
  const file = join(dist, 'hot', `${name}.cjs`);
  const source = readWrapped(file);
  BUNDLE_HASH.lastIndex = HEAD.length;
  const hash = BUNDLE_HASH.exec(source)?.[1];
  const stateDir = stateDirFrom(env, env.HOME || homedir());
  const cacheFile = hash === undefined ? undefined : codeCacheFile(stateDir, cacheName, hash);
  const key = hash === undefined ? undefined : cacheKey(hash, env);
  const cached =
    key === undefined || cacheFile === undefined
      ? { refused: 'no bundle hash' }
      : readCodeCache(cacheFile, key, scratchOf);
  const script = new Script(source, {
    filename: file,
    cachedData: 'data' in cached ? cached.data : undefined,
  });
  const used = 'data' in cached && script.cachedDataRejected !== true;
  mark(
    `compiled (code cache: ${used ? 'used' : 'data' in cached ? 'rejected by V8' : cached.refused}) ${name}`,
  );
  const module = { exports: {} as { run: R } };
  script.runInThisContext()(module.exports, bundleRequire(dirname(file)), module, file, dirname(file));
  // Written once a run: a long command's start-up and its exit may both ask.
  let written = used;
  return {
    run: module.exports.run,
    remember: async (exitCode) => {
      if (written || key === undefined || cacheFile === undefined || (exitCode !== 0 && exitCode !== 1))
        return;
      written = true;
      try {
        // After the run: the functions it compiled lazily are in the cache too.
        const data = script.createCachedData();
        const writer: CodeCacheWriter = await import(pathToFileURL(join(dist, 'code-cache-write.mjs')).href);
        await writer.writeCodeCache(stateDir, cacheFile, key, data, cacheName);
        mark(`code cache written ${cacheName}`);
      } catch {
        // Only a start-up optimisation: the next run compiles from source again.
      }
    },
  };
}

/**
 * The bundle's text inside Node's CommonJS wrapper, as one flat string: read into the scratch
 * between HEAD and TAIL and decoded once (UTF-8, as readFileSync decodes it, from one read instead
 * of 8 KB at a time), rather than `HEAD + text + TAIL`, a rope V8 flattens into a second copy of
 * the bundle before it compiles it.
 */
function readWrapped(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = scratchOf(HEAD.length + size + TAIL.length);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buffer, HEAD.length + got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    wrapper ??= Uint8Array.from(HEAD + TAIL, (c) => c.charCodeAt(0));
    buffer.set(wrapper.subarray(0, HEAD.length), 0);
    buffer.set(wrapper.subarray(HEAD.length), HEAD.length + got);
    return buffer.toString('utf8', 0, HEAD.length + got + TAIL.length);
  } finally {
    closeSync(fd);
  }
}

/** What the cache is valid for: this bundle, this wrapper, this Node and its V8 flags. */
function cacheKey(hash: string, env: NodeJS.ProcessEnv): string {
  const flags = [...process.execArgv, env.NODE_OPTIONS ?? ''];
  return `dogsled-code-cache 1 ${process.version} ${hash} ${JSON.stringify([HEAD, TAIL, flags])}`;
}

function homedir(): string {
  return (process.getBuiltinModule('node:os') as typeof import('node:os')).homedir();
}

/**
 * The require a bundle is given: Node's built-ins and the packages left out of it by name, the cold
 * files beside it (`./NAME.cjs`) by their path. The entry's own require resolves all three as one
 * made for the bundle's file would (a package from the same node_modules), without loading
 * node:module and the ES module loader's internals that createRequire brings.
 */
function bundleRequire(dir: string): NodeJS.Require {
  const load = (id: string): unknown => require(id.startsWith('./') ? join(dir, id) : id);
  return Object.assign(load, {
    resolve: require.resolve,
    cache: require.cache,
    main: require.main,
    extensions: require.extensions,
  }) as NodeJS.Require;
}
