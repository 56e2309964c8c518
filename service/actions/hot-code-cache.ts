// What the CLI's entry needs to compile a hot bundle with V8's code cache (cli/hot-loader.ts), and
// the dir of Node's compile cache for the rest (cli/compile-cache.ts): where
// the cache of a bundle lives in the state dir and the reader that trusts none it did not write
// (service/state/code-cache). The writer is a file of its own beside the bundles
// (dist/code-cache-write.mjs), loaded after a run that wrote nothing; its type is named here.

export { codeCacheFile, enableNodeCompileCache, readCodeCache } from '../state/code-cache/code-cache.js';
export { stateDirFrom } from '../state/paths.js';
export type CodeCacheWriter = typeof import('../state/code-cache/code-cache-write.js');
