// Node's own compile cache (module.enableCompileCache, Node 22.1 and later) for the commands that run
// from dist/full.mjs and its split chunks: ES modules, which the hot bundles' V8 code cache
// (hot-loader.ts) cannot cover. With it, a full command's start skips parsing and compiling the
// chunks it loads (`agent --help` on Node 22 here: about 215 → 160 ms of CPU). Node 20 has no such
// cache and starts as before. The cache lives in code-cache/node/ in the state dir (beside the
// sidebar's blessed files, sidebar/blessed-cache.ts), only when that dir exists (as the hot caches
// do), and never where the user chose a cache (NODE_COMPILE_CACHE) or none
// (NODE_DISABLE_COMPILE_CACHE). Node checks each entry against its file's content; the entries of a
// build no longer run are dropped by code-cache-write.ts.

import { enableNodeCompileCache, stateDirFrom } from '../service/actions/hot-code-cache.js';

/** Turns Node's compile cache on for the modules loaded from here on, where it can; never throws. */
export function enableCompileCache(env: NodeJS.ProcessEnv, home: () => string): void {
  // Node 20 (most starts here) pays nothing: no state dir is resolved for a cache it cannot keep.
  const nodeModule = process.getBuiltinModule('node:module') as { enableCompileCache?: unknown };
  if (typeof nodeModule.enableCompileCache !== 'function') return;
  enableNodeCompileCache(stateDirFrom(env, env.HOME || home()), env);
}
