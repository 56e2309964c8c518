// The code cache writer for a module that is itself compiled in a vm.Script (the sidebar's bundle,
// which writes blessed's cache): there `import()` of the writer's own file cannot run, so it imports
// this module, bundled with it and loaded only when a cache is written.

export { writeCodeCache } from '../state/code-cache/code-cache-write.js';
