// blessed's modules compiled with V8's code cache. blessed stays outside the sidebar's bundle (it
// cannot be bundled), so Node compiles its files from source at every start: some 460 KB, and the
// functions the first paint runs compiled again each time (about a tenth of a first paint's
// instructions). On Node >= 22.1 Node's own compile cache does it (module.enableCompileCache), flushed
// once the first frame is drawn (Node writes it only at a normal exit, which a sidebar closed with its
// pane never reaches; flushCompileCache is there from Node 22.10); on
// Node 20, which has no such cache for modules, blessed's files are compiled here as Node's loader
// would (its wrapper, its require) with the data of an earlier start, kept as one file beside the
// hot bundles' caches (code-cache/sidebar-blessed-KEY.bin) and read by the same reader, which trusts no
// file it did not write. A missing, foreign or refused cache costs a plain compile; a fresh one is
// written once the first frame is drawn, when the functions the paint ran are compiled too.
// V8 checks a cache only against its source's length, so each file's data is kept under that file's
// stamp (device, inode, size, mtime and ctime, from the handle it is read through): blessed edited in
// place under the same version (a patch, a hand fix) is compiled from its source, never from the data
// of what it was. ctime cannot be set back, so no edit keeps a stamp.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { Script } from 'node:vm';
import { codeCacheFile, enableNodeCompileCache, readCodeCache } from '../service/actions/hot-code-cache.js';
import { mark } from '../service/actions/timing-marks.js';

/** Node's loader, as the CommonJS runtime has it (already loaded: requiring it costs nothing). */
interface Loader {
  wrap(source: string): string;
  _extensions: Record<string, (module: LoadedModule, filename: string) => void>;
  _resolveFilename(request: string, parent: LoadedModule, isMain: boolean, options?: unknown): string;
  _cache: Record<string, unknown>;
}

interface LoadedModule {
  exports: unknown;
  require(id: string): unknown;
}

/** One compiled file: its path under blessed's directory, its source's length and stamp, its script. */
interface Compiled {
  file: string;
  length: number;
  stamp: string;
  script: Script;
  used: boolean;
}

/** The cache's data: a JSON index line, then each file's V8 data in the index's order. */
interface IndexEntry {
  file: string;
  length: number;
  stamp: string;
  bytes: number;
}

export interface BlessedCache {
  /** Writes the cache when any file was compiled without it; never throws. */
  remember(): Promise<void>;
}

/** The cache's name in code-cache/, beside the sidebar bundle's own. */
const CACHE_NAME = 'sidebar-blessed';

const NONE: BlessedCache = { remember: async () => undefined };

/** Node's compile cache (Node >= 22.1) written now, with the functions the first paint compiled. */
const NODE_CACHE: BlessedCache = {
  remember: async () => {
    try {
      const nodeModule = process.getBuiltinModule('node:module') as { flushCompileCache?: () => void };
      if (typeof nodeModule.flushCompileCache !== 'function') return;
      nodeModule.flushCompileCache();
      mark('node compile cache flushed');
    } catch {
      // Only a start-up optimisation: Node writes what it has at a normal exit.
    }
  },
};

/** blessed's directory and its version (app.ts, the one module that loads blessed, finds them). */
export interface BlessedPackage {
  root: string;
  version: string;
}

/**
 * Compiles blessed's files with a code cache from now on. `stateDir`: where the cache is kept, as
 * the hot bundles' are.
 */
export function cacheBlessed(
  stateDir: string,
  env: NodeJS.ProcessEnv,
  blessed: () => BlessedPackage,
): BlessedCache {
  try {
    const loader = require('node:module') as Loader;
    if (enableNodeCompileCache(stateDir, env)) return NODE_CACHE;
    const { root, version } = blessed();
    const key = `dogsled-blessed-cache 2 ${process.version} ${version} ${root} ${JSON.stringify([
      process.execArgv,
      env.NODE_OPTIONS ?? '',
    ])}`;
    const file = codeCacheFile(stateDir, CACHE_NAME, fnv(key));
    const read = readCodeCache(file, key);
    const cached = 'data' in read ? parseIndex(read.data) : new Map<string, Buffer>();
    const compiled: Compiled[] = [];
    const plain = loader._extensions['.js'];
    if (!plain) return NONE;
    loader._extensions['.js'] = (module, filename) => {
      if (!filename.startsWith(root + sep)) return plain(module, filename);
      const read = readStamped(filename);
      let source = read.source;
      if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
      const wrapped = loader.wrap(source);
      const name = relative(root, filename);
      const data = cached.get(entryKey(name, wrapped.length, read.stamp));
      const script = new Script(wrapped, { filename, cachedData: data });
      compiled.push({
        file: name,
        length: wrapped.length,
        stamp: read.stamp,
        script,
        used: data !== undefined && script.cachedDataRejected !== true,
      });
      const fn = script.runInThisContext() as (...args: unknown[]) => void;
      fn.call(
        module.exports,
        module.exports,
        requireFor(loader, module),
        module,
        filename,
        dirname(filename),
      );
    };
    mark(`blessed code cache: ${'data' in read ? `${cached.size} files` : read.refused}`);
    return {
      remember: async () => {
        if (compiled.every((c) => c.used)) return;
        try {
          const index: IndexEntry[] = [];
          const blobs: Buffer[] = [];
          for (const c of compiled) {
            const data = c.script.createCachedData();
            index.push({ file: c.file, length: c.length, stamp: c.stamp, bytes: data.length });
            blobs.push(data);
          }
          const data = Buffer.concat([Buffer.from(`${JSON.stringify(index)}\n`), ...blobs]);
          const { writeCodeCache } = await import('../service/actions/code-cache-writer.js');
          await writeCodeCache(stateDir, file, key, data, CACHE_NAME);
          mark('blessed code cache written');
        } catch {
          // Only a start-up optimisation: the next start compiles from source again.
        }
      },
    };
  } catch {
    return NONE;
  }
}

/** A file's data is looked up by its path, its wrapped source's length and its stamp. */
function entryKey(file: string, length: number, stamp: string): string {
  return `${file}\0${length}\0${stamp}`;
}

/**
 * A file's text and its stamp, both from one handle (the same calls readFileSync makes: open, fstat,
 * read, close), so the stamp is that of the text compiled, even when the file is replaced meanwhile.
 */
function readStamped(filename: string): { source: string; stamp: string } {
  const fd = openSync(filename, 'r');
  try {
    const info = fstatSync(fd, { bigint: true });
    const buffer = Buffer.allocUnsafe(Number(info.size));
    let got = 0;
    while (got < buffer.length) {
      const n = readSync(fd, buffer, got, buffer.length - got, null);
      if (n === 0) break;
      got += n;
    }
    const stamp = `${info.dev}:${info.ino}:${got}:${info.mtimeNs}:${info.ctimeNs}`;
    return { source: buffer.toString('utf8', 0, got), stamp };
  } finally {
    closeSync(fd);
  }
}

/** The files' data by entryKey; an index that does not add up is no cache at all. */
function parseIndex(data: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const end = data.indexOf(10);
  if (end < 0) return out;
  let index: unknown;
  try {
    index = JSON.parse(data.toString('utf8', 0, end));
  } catch {
    return out;
  }
  if (!Array.isArray(index)) return out;
  let at = end + 1;
  for (const entry of index as IndexEntry[]) {
    const ok =
      typeof entry?.file === 'string' &&
      typeof entry.stamp === 'string' &&
      Number.isSafeInteger(entry.length) &&
      Number.isSafeInteger(entry.bytes) &&
      entry.bytes > 0 &&
      at + entry.bytes <= data.length;
    if (!ok) return new Map();
    out.set(entryKey(entry.file, entry.length, entry.stamp), data.subarray(at, at + entry.bytes));
    at += entry.bytes;
  }
  return at === data.length ? out : new Map();
}

/** The require a module compiled here is given: Node's own, resolved from that module. */
function requireFor(loader: Loader, module: LoadedModule): NodeJS.Require {
  const load = (id: string) => module.require(id);
  return Object.assign(load, {
    resolve: (request: string, options?: unknown) => loader._resolveFilename(request, module, false, options),
    cache: loader._cache,
    main: require.main,
    extensions: loader._extensions,
  }) as unknown as NodeJS.Require;
}

/** 16 hex digits of FNV-1a (64-bit) of `text`: the cache file's name for its key. */
function fnv(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
