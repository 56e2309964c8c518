// Bundles the CLI into dist/ with esbuild. Commands are split into lazily loaded chunks so a
// command never parses the code of the others; the hot ones (cli/hot/NAME.ts: status, hook, exec,
// run, place) are also bundled whole, one file each, because Node's ESM loader pays per module and
// their chunks are some forty modules; what they rarely need is a file of its own beside them
// (COLD). A hot bundle is CommonJS (dist/hot/NAME.cjs), so cli/hot-loader.ts can compile it with
// V8's code cache, which Node 20 has only for scripts; its first line is the hash of the rest, which
// keys that cache.
// Files are replaced atomically, chunks before the entry, and old chunks are kept for an hour: a
// CLI process started from the previous build (a running service, a parallel test run) can still
// load its lazy chunks while a new build lands.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// CJS dependencies (commander, proper-lockfile) expect these names in an ESM bundle.
export const BUNDLE_BANNER = [
  "import { createRequire as __dogsledCreateRequire } from 'node:module';",
  "import { fileURLToPath as __dogsledFileURLToPath } from 'node:url';",
  "import { dirname as __dogsledDirname } from 'node:path';",
  'const require = __dogsledCreateRequire(import.meta.url);',
  'const __filename = __dogsledFileURLToPath(import.meta.url);',
  'const __dirname = __dogsledDirname(__filename);',
].join('\n');

// blessed loads its widgets with dynamic requires and cannot be bundled; ssh2's optional native
// helpers (cpu-features, sshcrypto.node) are left out: ssh2 falls back to plain JS without them.
// The MCP SDK (only `dogsled mcp` loads it) uses zod's classic API as namespaces: bundled into the
// chunks, it would pull all of zod into what every command shares. So the chunks (`mcp --help` and
// the like) load it from node_modules, and the hot bundle `mcp` runs from carries it inside
// (MCP_BUNDLE).
export const BUNDLE_EXTERNALS = [
  'blessed',
  'blessed-contrib',
  'cpu-features',
  '*.node',
  '@modelcontextprotocol/sdk',
];

/**
 * The hot bundles' cold halves: code a hot command needs only on some paths, bundled as a file of
 * its own beside the hot bundles and imported from there on first use, so it is not parsed on every
 * call. Each entry names the module, the file it becomes and the one importer whose dynamic
 * import() of it is sent to that file:
 * - the hook's terminal lookup (service/inbox/whereabouts.ts), needed only until its pane's
 *   terminal is remembered (service/inbox/pane-terminals.ts): a third of the hook bundle;
 * - the waiting writer of the Stop's cleanup request (service/sweep/request.ts, with the store,
 *   the lock and proper-lockfile), which the lean hook needs only when its quick write could not be
 *   done (the lock held, the file in doubt): half of the lean hook's bundle;
 * - `place --branch`'s worktree layer, with the terminal it opens (service/worktrees/branch-worktree.ts);
 * - the terminal a job's supervisor reports its pane through, which a headless job never opens
 *   (service/terminal/open.ts from service/jobs/supervisor/exec-pane-state.ts);
 * - the pane's wrapper (service/jobs/supervisor/exec-pane.ts from exec.ts), which runs from a hot
 *   bundle of its own (hot/exec-pane): the supervisor's bundle has it only for an `exec` that did
 *   not come through the fast path;
 * - Herdr's machine verbs, read only where a herdr binary is on PATH (service/terminal/herdr/herdr-machines.ts);
 * - `run`'s paths off its common one (service/actions/run-elsewhere.ts): the full placement, a
 *   queued ticket's wait, a job on a peer, a `--branch` worktree;
 * - the NATS client, for a call to a host met on the fleet bus (service/bus/rpc-client.ts from
 *   service/hosts/peer-verb.ts): `run --host` and `place --host` of such a host;
 * - the lean place's wait, with the waiting lock, proper-lockfile and the store
 *   (service/hosts/reserve-waiting.ts): two fifths of place-lean, run only when a lock is held;
 * - the lean send's full write (service/inbox/send-write.ts from service/actions/send-glance.ts), with
 *   the store, the waiting lock and node:fs/promises: run only when the write at once cannot answer.
 * A cold file has its own copies of what it imports: DogsledError is recognised across copies by a
 * brand (service/core/common/errors.ts), and what crosses the boundary holds no module state.
 */
const COLD = [
  {
    out: 'hot/hook-whereabouts',
    module: 'service/inbox/whereabouts.ts',
    importer: 'service/inbox/hook-common.ts',
  },
  {
    out: 'hot/hook-sweep-request',
    module: 'service/sweep/request.ts',
    importer: 'service/sweep/request-now.ts',
  },
  {
    out: 'hot/place-branch',
    module: 'service/worktrees/branch-worktree.ts',
    importer: 'service/actions/place.ts',
  },
  {
    out: 'hot/exec-terminal',
    module: 'service/terminal/open.ts',
    importer: 'service/jobs/supervisor/exec-pane-state.ts',
  },
  {
    out: 'hot/exec-wrapper',
    module: 'service/jobs/supervisor/exec-pane.ts',
    importer: 'service/jobs/supervisor/exec.ts',
  },
  {
    out: 'hot/herdr-machines',
    module: 'service/terminal/herdr/herdr-machines.ts',
    importer: 'service/hosts/machine-list.ts',
  },
  {
    out: 'hot/run-elsewhere',
    module: 'service/actions/run-elsewhere.ts',
    importer: 'service/actions/run.ts',
  },
  {
    out: 'hot/bus-rpc',
    module: 'service/bus/rpc-client.ts',
    importer: 'service/hosts/peer-verb.ts',
  },
  {
    out: 'hot/reserve-waiting',
    module: 'service/hosts/reserve-waiting.ts',
    importer: 'service/hosts/reserve-glance.ts',
  },
  {
    out: 'hot/send-write',
    module: 'service/inbox/send-write.ts',
    importer: 'service/actions/send-glance.ts',
  },
];
const COLD_ENTRIES = Object.fromEntries(COLD.map((c) => [c.out, c.module]));
const COLD_SPLIT = {
  name: 'hot-cold',
  setup(b) {
    b.onResolve({ filter: /\.js$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = join(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      const cold = COLD.find(
        (c) => args.importer === join(root, c.importer) && target === join(root, c.module),
      );
      return cold ? { path: `./${cold.out.slice('hot/'.length)}.cjs`, external: true } : undefined;
    });
  },
};

/**
 * proper-lockfile reaches the filesystem through graceful-fs, whose load patches the global fs
 * (close, through its retry queue), reads fs's lazy ReadStream getter and requires `constants`: a
 * cost on every command that takes a lock. Its retries are for
 * EMFILE on open, readdir and the like; proper-lockfile calls only mkdir, rmdir, stat, utimes and
 * realpath, which graceful-fs passes through, so it gets node:fs itself.
 */
const PLAIN_FS = {
  name: 'plain-fs',
  setup(b) {
    b.onResolve({ filter: /^graceful-fs$/ }, () => ({ path: 'graceful-fs', namespace: 'plain-fs' }));
    b.onLoad({ filter: /.*/, namespace: 'plain-fs' }, () => ({
      contents: "module.exports = require('node:fs');",
      loader: 'js',
    }));
  },
};

/**
 * signal-exit (proper-lockfile's way to drop its locks when the process exits) loads node:assert for
 * one `assert.equal` on its argument; loading assert formats its colours, which opens stderr as a
 * stream and loads node:net: some milliseconds of every command that takes a lock. It gets the one
 * check it uses.
 */
const LEAN_ASSERT = {
  name: 'lean-assert',
  setup(b) {
    b.onResolve({ filter: /^assert$/ }, (args) =>
      /[/\\]node_modules[/\\]signal-exit[/\\]/.test(args.importer)
        ? { path: 'assert', namespace: 'lean-assert' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lean-assert' }, () => ({
      contents:
        'module.exports = { equal(actual, expected, message) { if (actual != expected) throw new Error(message); } };',
      loader: 'js',
    }));
  },
};

/**
 * node:fs/promises, node:os and node:timers/promises loaded on first use rather than when the bundle
 * starts, for the hot bundles whose common path does not touch them (LAZY_BUILTIN_BUNDLES): loading
 * fs/promises brings readline's interface, the directory streams and their bindings (some 5 M
 * instructions of a Node start's 87 M), the other two a module and a binding each, and a module
 * that imports one at its top would pay that on every call. Each export is a getter that requires
 * the module the first time one is read; esbuild's interop reads an import's property at each use, so a
 * path that never calls it never loads it. The names are this Node's; the code uses only Node 20's.
 */
const LAZY_BUILTIN = {
  name: 'lazy-builtin',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(fs\/promises|os|timers\/promises)$/ }, (args) => {
      const path = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      // The getters' own require is of the module itself.
      return args.namespace === 'lazy-builtin'
        ? { path, external: true }
        : { path, namespace: 'lazy-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const names = Object.getOwnPropertyNames(await import(args.path)).filter((n) => n !== 'default');
      return {
        contents: [
          'let loaded;',
          `const load = () => (loaded ??= require(${JSON.stringify(args.path)}));`,
          `for (const name of ${JSON.stringify(names)})`,
          '  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};
/**
 * The hot bundles built with LAZY_BUILTIN: `run`, whose headless --wait path reads and writes
 * synchronously, and `exec` (a job's supervisor and a pane's wrapper), whose claim, spawn and end
 * are synchronous calls too.
 */
const LAZY_BUILTIN_BUNDLES = ['hot/run', 'hot/exec', 'hot/exec-pane'];

/**
 * `dogsled mcp`'s bundle, built with the MCP SDK and its zod inside: as ES modules from node_modules
 * they were some 200 files to resolve and compile on every start, and no code cache (Node 20 has
 * none for ES modules) in a process a harness starts for every session.
 */
const MCP_BUNDLE = 'hot/mcp';

/** The hot commands' entry points, by output name: `hot/status` for cli/hot/status.ts. */
async function hotEntryPoints() {
  const names = (await readdir(join(root, 'cli', 'hot'))).filter(
    (n) => n.endsWith('.ts') && n !== 'entry.ts',
  );
  return Object.fromEntries(names.map((n) => [`hot/${n.slice(0, -3)}`, `cli/hot/${n}`]));
}

export async function buildCli(outdir = join(root, 'dist')) {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const common = {
    write: false,
    absWorkingDir: root,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: BUNDLE_BANNER },
    define: { __DOGSLED_VERSION__: JSON.stringify(pkg.version) },
    external: BUNDLE_EXTERNALS,
    plugins: [PLAIN_FS, LEAN_ASSERT],
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  };
  const commonJS = {
    ...common,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // No banner: require, __filename and __dirname are the CommonJS wrapper's. import() becomes
    // require(), so a bundle compiled in a vm.Script needs no module loader of its own.
    banner: {},
    supported: { 'dynamic-import': false },
    splitting: false,
    plugins: [PLAIN_FS, LEAN_ASSERT, COLD_SPLIT],
  };
  const hotEntries = await hotEntryPoints();
  const lazyEntries = Object.fromEntries(LAZY_BUILTIN_BUNDLES.map((name) => [name, hotEntries[name]]));
  for (const name of LAZY_BUILTIN_BUNDLES) delete hotEntries[name];
  const mcpEntry = { [MCP_BUNDLE]: hotEntries[MCP_BUNDLE] };
  delete hotEntries[MCP_BUNDLE];
  const hotBuilds = [
    await build({ ...commonJS, entryPoints: hotEntries }),
    await build({ ...commonJS, entryPoints: lazyEntries, plugins: [...commonJS.plugins, LAZY_BUILTIN] }),
    await build({
      ...commonJS,
      entryPoints: mcpEntry,
      external: BUNDLE_EXTERNALS.filter((name) => name !== '@modelcontextprotocol/sdk'),
    }),
  ];
  const hot = { outputFiles: hotBuilds.flatMap((result) => result.outputFiles) };
  const cold = await build({ ...commonJS, entryPoints: COLD_ENTRIES });
  const result = await build({
    ...common,
    entryPoints: { full: 'cli/full.ts', 'code-cache-write': 'service/state/code-cache/code-cache-write.ts' },
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
  });
  // The entry alone, one file that imports no other: all a hot command loads besides its bundle.
  // It reaches full.mjs and the cache writer through URLs, which esbuild leaves alone, and needs
  // none of the banner's names.
  const start = await build({
    ...common,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    banner: {},
    entryPoints: { dogsled: 'cli/main.ts' },
  });
  const hotFiles = hot.outputFiles.map((file) => ({
    path: file.path,
    contents: withBundleHash(file.contents),
  }));
  // The entry last: a process that starts while the build lands finds every file it names.
  const entry = join(outdir, 'dogsled.cjs');
  const files = [...cold.outputFiles, ...hotFiles, ...result.outputFiles];
  const entries = [
    ...start.outputFiles,
    { path: join(outdir, 'dogsled.mjs'), contents: Buffer.from(FORMER_ENTRY) },
  ];
  files.push(...(await dashPage(outdir)));
  for (const file of files) await replaceFile(file);
  // The top-level help as the full command line prints it on a pipe, for cli/quick-answers.ts.
  const help = { path: join(outdir, 'help.txt'), contents: renderHelp(join(outdir, 'full.mjs')) };
  for (const file of [help, ...entries]) await replaceFile(file);
  files.push(help, ...entries);
  const current = new Set(files.map((file) => file.path));
  await dropOldChunks(join(outdir, 'chunks'), current);
  // The hot bundles were ESM (NAME.mjs) before they were CommonJS.
  await dropOldChunks(join(outdir, 'hot'), current);
  return entry;
}

/**
 * The page `dogsled dash` serves (dash/page/), built once: its script and stylesheet minified, the
 * page's shell as written. The server inlines both into the one page it sends and allows exactly
 * them by their hashes (dash/assets.ts). No other command reads these files.
 */
async function dashPage(outdir) {
  const dir = join(root, 'dash', 'page');
  const [page, style, script] = await Promise.all(
    ['page.html', 'dash.css', 'dash.js'].map((name) => readFile(join(dir, name), 'utf8')),
  );
  const js = await transform(script, { loader: 'js', minify: true, target: 'es2022', legalComments: 'none' });
  const css = await transform(style, { loader: 'css', minify: true, legalComments: 'none' });
  return [
    { path: join(outdir, 'dash', 'page.html'), contents: Buffer.from(page) },
    { path: join(outdir, 'dash', 'dash.js'), contents: Buffer.from(js.code.trim()) },
    { path: join(outdir, 'dash', 'dash.css'), contents: Buffer.from(css.code.trim()) },
  ];
}

async function replaceFile(file) {
  await mkdir(dirname(file.path), { recursive: true });
  const temp = `${file.path}.${process.pid}.tmp`;
  await writeFile(temp, file.contents, { mode: 0o755 });
  await rename(temp, file.path);
}

/** `dogsled --help` from the just-built full command line, its stdout a pipe (commander's 80 columns). */
function renderHelp(full) {
  const script = `import(${JSON.stringify(pathToFileURL(full).href)}).then((m) => m.runFull(['--help'], undefined))`;
  return execFileSync(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

/**
 * dist/dogsled.mjs, the entry's name until it became CommonJS: what an older build wrote into a
 * plugin's bin script, a service unit or a user's alias still runs, through the new entry.
 */
const FORMER_ENTRY = [
  '#!/usr/bin/env node',
  '// The CLI entry is dist/dogsled.cjs; this name is kept for the scripts that still run it.',
  "import { createRequire } from 'node:module';",
  "createRequire(import.meta.url)('./dogsled.cjs');",
  '',
].join('\n');

/** `// dogsled-bundle <sha256 of the rest>` first: what the code cache of the bundle is keyed by. */
function withBundleHash(contents) {
  const hash = createHash('sha256').update(contents).digest('hex');
  return Buffer.concat([Buffer.from(`// dogsled-bundle ${hash}\n`), contents]);
}

/**
 * Bundles other entry points exactly as the CLI's lazy chunks are bundled (CommonJS interop,
 * externals, code splitting), for benchmarks and tests that run service modules from a bundle.
 */
export function bundleModules(entryPoints, outdir) {
  return build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: BUNDLE_BANNER },
    external: BUNDLE_EXTERNALS,
    plugins: [PLAIN_FS, LEAN_ASSERT],
    logLevel: 'error',
  });
}

/**
 * Bundles the Pi extension (plugins/pi) into one plain ESM file with no runtime dependencies, so
 * `pi install` needs no build of its own and Pi loads it without compiling TypeScript; the shared
 * skill is copied beside it, because a package carries only its own files.
 */
export async function buildPiExtension() {
  const dir = join(root, 'plugins', 'pi');
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  const result = await build({
    write: false,
    absWorkingDir: root,
    entryPoints: [join(dir, 'src', 'index.ts')],
    outfile: join(dir, 'dist', 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    define: { __DOGSLED_PI_VERSION__: JSON.stringify(pkg.version) },
    legalComments: 'none',
    logLevel: 'warning',
  });
  const skill = join(root, 'plugins', 'dogsled', 'skills', 'dogsled', 'SKILL.md');
  const files = [
    ...result.outputFiles.map((file) => ({ path: file.path, contents: file.contents })),
    { path: join(dir, 'dist', 'skills', 'dogsled', 'SKILL.md'), contents: await readFile(skill) },
  ];
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    await writeFile(temp, file.contents);
    await rename(temp, file.path);
  }
  return join(dir, 'dist', 'index.js');
}

const CHUNK_GRACE_MS = 60 * 60_000;

async function dropOldChunks(dir, current) {
  for (const name of await readdir(dir).catch(() => [])) {
    const path = join(dir, name);
    if (current.has(path)) continue;
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > CHUNK_GRACE_MS) await rm(path, { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
  await buildPiExtension();
}
