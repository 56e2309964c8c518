// What importing a hot bundle (dist/hot/NAME.cjs, built by the suite's global set-up) costs,
// counted rather than timed: no zod schema is built at import (zod's own post-processor hook sees
// every construction), and none of the builtins that only some paths need (node:crypto,
// node:child_process, node:net, node:perf_hooks) is loaded. Hooks run on every prompt and stop;
// the time these took at import was most of what they cost beyond `node -e 0`. The hook bundle
// leaves the terminal layer (a third of its size, needed until a pane's terminal is remembered) to
// dist/hot/hook-whereabouts.cjs; `place` leaves its --branch worktree layer and Herdr's machine verbs
// (the terminal layer, two fifths of it) to dist/hot/place-branch.cjs and herdr-machines.cjs, and an
// error thrown there is still a DogsledError (one line, exit 2) when the hot bundle reports it; a
// job's supervisor (exec) leaves the terminal it reports a pane through to dist/hot/exec-terminal.cjs.
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import {
  chown,
  lstat,
  mkdir,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { spawnsByHandle } from '../../../service/jobs/supervisor/exec-spawn.js';
import { statePaths } from '../../../service/state/paths.js';
import { readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { CLI, ROOT, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';
import { moduleProbe } from '../../helpers/module-probe.js';

const execFileAsync = promisify(execFile);

const PROBE = `
let built = 0;
globalThis.__zod_globalConfig = { postProcessor: () => { built += 1; } };
const before = new Set(process.moduleLoadList);
await import(process.argv[1]);
const loaded = process.moduleLoadList.filter((m) => !before.has(m)).map((m) => m.replace(/^NativeModule /, ''));
process.stdout.write(JSON.stringify({ built, loaded }));
`;

/** Imports the bundle in a fresh node (nothing runs but its top level) and reports what that did. */
function importCost(bundle: string): { built: number; loaded: string[] } {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pathToFileURL(bundle).href],
    {
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`importing ${bundle} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const ON_USE_ONLY = ['crypto', 'child_process', 'net', 'perf_hooks'];

const HOT = ['hook', 'place', 'status', 'run', 'exec', 'exec-pane', 'sidebar', 'dash', 'cleanup'];

/** A hot bundle or a cold file beside them: CommonJS, dist/hot/NAME.cjs. */
function bundleText(name: string): string {
  return readFileSync(join(ROOT, 'dist', 'hot', `${name}.cjs`), 'utf8');
}

/** Required on first use only: a require() at the top would load the cold file on every call. */
const lazily = (file: string) => `Promise.resolve().then(()=>__toESM(require("./${file}.cjs")`;

describe('hot bundles at import', () => {
  // exec, the job's supervisor, starts its child through the process handle (exec-spawn.ts) and
  // writes fd 1 and 2 directly: neither at import nor on its way (below). exec-pane, a pane's
  // wrapper, needs neither either.
  // The dash is a web server: it always listens (node:http loads node:net) and makes its token.
  // doctor and prune (cleanup) always run git, and read indexes (hashing their checksums).
  const needs: Record<string, string[]> = {
    dash: ['crypto', 'net'],
    cleanup: ['crypto', 'child_process'],
  };
  for (const name of HOT) {
    it(`${name}: builds no zod schema and loads no builtin it may not need`, () => {
      const cost = importCost(join(ROOT, 'dist', 'hot', `${name}.cjs`));
      expect(cost.built).toBe(0);
      const mayLoad = ON_USE_ONLY.filter((m) => !needs[name]?.includes(m));
      expect(cost.loaded.filter((m) => mayLoad.includes(m))).toEqual([]);
    });
  }

  // The common cases answered without zod (cli/hot/*-lean.ts): their files are checked by hand.
  for (const name of [
    'status-lean',
    'status-json-lean',
    'hook-lean',
    'hook-context-lean',
    'place-lean',
    'items-lean',
    'ps-lean',
    'board-lean',
    'send-lean',
  ]) {
    it(`${name}: carries no zod, no commander and no terminal layer, and builds nothing at import`, () => {
      const text = bundleText(name);
      expect(text).not.toMatch(/zod|commander/i);
      expect(text).not.toContain('function openTerminal(');
      expect(text.length).toBeLessThan(150_000);
      const cost = importCost(join(ROOT, 'dist', 'hot', `${name}.cjs`));
      expect(cost.built).toBe(0);
      expect(cost.loaded.filter((m) => ON_USE_ONLY.includes(m))).toEqual([]);
    });
  }

  it("a prompt's hooks load no builtin module beyond node:vm", async () => {
    // node:fs/promises (with readline), node:net and the streams (process.stdin), node:module
    // (createRequire), parseArgs and node:os were each a share of every prompt's start-up. The
    // piped stdin is read through the pipe handle: two bindings, no module.
    const box = await sandbox();
    try {
      const probe = await moduleProbe(box.root);
      await mkdir(box.state, { recursive: true, mode: 0o700 });
      for (const args of [
        ['hook', 'inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'],
        ['hook', 'state', '--harness', 'claude', '--event', 'Notification'],
        ['hook', 'context', '--harness', 'claude', '--event', 'UserPromptSubmit'],
      ]) {
        // Twice: the second run compiles from the code cache the first one wrote.
        for (let i = 0; i < 2; i++) {
          const run = spawnSync(process.execPath, ['-r', probe.preload, CLI, ...args], {
            // Outside any pane: the hooks' own start-up (test/integration/cli/cli-hook-lean.test.ts
            // holds the same in a pane of the fake Herdr).
            env: box.env,
            input: '{"hook_event_name":"UserPromptSubmit"}',
          });
          expect(run.status).toBe(0);
        }
        const loaded = await probe.loaded();
        expect({ args, loaded }).toEqual({
          args,
          loaded: ['NativeModule vm', 'Internal Binding pipe_wrap', 'Internal Binding stream_wrap'],
        });
      }
    } finally {
      await box.cleanup();
    }
  });

  it("hook-lean: a Stop's bundle carries no host policy reader and no renderer; the waiting writer is a file of its own", () => {
    // Everything in a hot bundle costs its every run (the code cache read, its functions set up):
    // the Stop, the gate and the prompt's inbox hook answer from a bundle of their own answers.
    const lean = bundleText('hook-lean');
    for (const fn of ['loadConfig', 'renderHookContext', 'glanceContext', 'updateState', 'lockFile']) {
      expect(lean).not.toContain(`function ${fn}(`);
    }
    expect(lean).not.toMatch(/smol-toml|proper-lockfile/);
    expect(lean).toContain('function updateNow(');
    // The request's waiting writer (the store, its lock and proper-lockfile), only when the quick
    // write could not be done.
    expect(lean).toContain(lazily('hook-sweep-request'));
    expect(lean.split('require("./').length).toBe(2);
    expect(bundleText('hook-sweep-request')).toContain('function askForSweep(');
    // The prompt context writes nothing: no lock, no cleanup request.
    const context = bundleText('hook-context-lean');
    expect(context).toContain('function renderHookContext(');
    for (const fn of ['updateNow', 'lockNow', 'askForSweepNow', 'wakeSweeper']) {
      expect(context).not.toContain(`function ${fn}(`);
    }
  });

  it('hook: the terminal lookup is a file of its own, loaded only when needed', () => {
    expect(bundleText('hook')).not.toContain('function openTerminal(');
    expect(bundleText('hook')).toContain(lazily('hook-whereabouts'));
    expect(bundleText('hook-whereabouts')).toContain('function openTerminal(');
  });

  it('place: the terminal layer and the bus client are in files of their own, loaded only when needed', () => {
    const place = bundleText('place');
    for (const fn of ['openTerminal', 'listMachines', 'ensureBranchWorktree', 'commandBusTransport']) {
      expect(place).not.toContain(`function ${fn}(`);
    }
    // Only on first use: loaded at the top, they would load on every placement.
    expect(place).toContain(lazily('place-branch'));
    expect(place).toContain(lazily('herdr-machines'));
    expect(place).toContain(lazily('bus-rpc'));
    expect(place.split('require("./').length).toBe(4);
    expect(bundleText('bus-rpc')).toContain('function commandBusTransport(');
    expect(bundleText('place-branch')).toContain('function openTerminal(');
    expect(bundleText('herdr-machines')).toContain('function listMachines(');
  });

  it("the lean place's wait and the lean send's full write are files of their own, loaded only when needed", () => {
    // The waiting lock, proper-lockfile (with graceful-fs) and the store: two fifths of each lean
    // bundle, run only when a lock is held or a file is in doubt.
    for (const [lean, cold] of [
      ['place-lean', 'reserve-waiting'],
      ['send-lean', 'send-write'],
    ] as const) {
      const text = bundleText(lean);
      for (const fn of ['withLock', 'updateState', 'lockOnce']) expect(text).not.toContain(`function ${fn}(`);
      expect(text).not.toContain('proper-lockfile');
      expect(text).toContain(lazily(cold));
      expect(text.split('require("./').length).toBe(2);
      expect(bundleText(cold)).toContain('function withLock(');
    }
  });

  it("exec: the terminal a job's supervisor reports its pane through is loaded only under a terminal", () => {
    // A headless job's supervisor, on `run --wait`'s critical path, never opens it.
    expect(bundleText('exec')).not.toContain('function openTerminal(');
    expect(bundleText('exec')).toContain(lazily('exec-terminal'));
    expect(bundleText('exec-terminal')).toContain('function openTerminal(');
  });

  it("place: an error thrown in a cold file is the hot bundle's DogsledError: one line, exit 2", async () => {
    const box = await sandbox();
    try {
      const notRepo = join(box.root, 'not-a-repo');
      await mkdir(notRepo);
      const result = await runCli(['place', '--branch', 'feat', '--repo', notRepo], box.env, {
        cwd: notRepo,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^dogsled: place: --branch needs a Git repository: [^\n]*\n$/);
      expect(result.stdout).toBe('');
    } finally {
      await box.cleanup();
    }
  });

  it('no hot bundle carries the NATS client: the service loads it, and a call to a bus host its cold file', () => {
    for (const name of HOT) expect(bundleText(name)).not.toContain('@nats-io/');
    expect(readFileSync(join(ROOT, 'dist', 'hot', 'bus-rpc.cjs'), 'utf8')).toContain('@nats-io/');
  });

  it("no other command carries the dash's server or page: only `dogsled dash` loads them", () => {
    // The server's stream type and the page's one-line refusals are in the dash's bundle (and, for
    // `dash --help` and other forms the full command line takes, its chunk) alone.
    const marks = ['text/event-stream', 'refused: a request from another origin'];
    for (const mark of marks) expect(bundleText('dash')).toContain(mark);
    for (const name of HOT.filter((n) => n !== 'dash'))
      for (const mark of marks) expect(bundleText(name)).not.toContain(mark);
    const full = readFileSync(join(ROOT, 'dist', 'full.mjs'), 'utf8');
    for (const mark of marks) expect(full).not.toContain(mark);
    const chunks = readdirSync(join(ROOT, 'dist', 'chunks')).filter((name) =>
      readFileSync(join(ROOT, 'dist', 'chunks', name), 'utf8').includes(marks[1] as string),
    );
    // Old builds' chunks stay an hour beside the new ones (scripts/build.mjs): by name, one kind.
    expect([...new Set(chunks.map((name) => name.replace(/-[A-Z0-9]+\.mjs$/, '')))]).toEqual(['dash']);
  });

  it('proper-lockfile gets node:fs, not graceful-fs (which patches the global fs on load)', () => {
    for (const name of HOT) expect(bundleText(name)).not.toContain('graceful-fs/graceful-fs.js');
    expect(bundleText('place')).toContain('proper-lockfile/lib/lockfile.js');
  });

  it('the entry is one CommonJS file: a hot command loads no module but it and its bundle', () => {
    // An ES module entry costs Node's module loader and a facade of each built-in it imports; the
    // entry reaches the rest of the CLI (full.mjs) and the cache writer only through import() of a URL.
    const entry = readFileSync(join(ROOT, 'dist', 'dogsled.cjs'), 'utf8');
    expect(entry.match(/(?:from|import|require)\s*\(?\s*["'](?!node:)[^"']*["']/g)).toBeNull();
    expect(entry).not.toMatch(/^\s*(?:import|export)\s/m);
    expect(entry).toMatch(/pathToFileURL\)\(`\$\{DIST\}\/full\.mjs`\)/);
  });

  it('status --json loads neither assert, the streams, node:net nor the ES module translators', async () => {
    // signal-exit (proper-lockfile's) loaded assert, which opens stderr as a stream; process.stdout
    // is a stream; an ES module entry loads the module translators. Each was milliseconds a command.
    const box = await sandbox();
    try {
      const probe = await moduleProbe(box.root);
      // The second run compiles from the code cache the first one wrote, as every later run does
      // (a cache is written only into a state dir that exists).
      await mkdir(box.state, { recursive: true, mode: 0o700 });
      for (let i = 0; i < 2; i++) {
        const { stdout } = await execFileAsync(
          process.execPath,
          ['-r', probe.preload, CLI, 'status', '--json'],
          {
            env: box.env,
          },
        );
        expect(JSON.parse(stdout)).toBeTypeOf('object');
      }
      const loaded = await probe.loaded();
      expect(loaded).toContain('NativeModule vm');
      for (const name of ['assert', 'stream', 'net', 'tty', 'internal/modules/esm/translators'])
        expect(loaded).not.toContain(`NativeModule ${name}`);
    } finally {
      await box.cleanup();
    }
  });

  it("exec: a job's supervisor carries no zod nor the pane's wrapper, and sets up the warm supervisor only when it is one", () => {
    // Its job's environment and placements.json are judged by their hand checks
    // (state/records/env-file-read.ts, hosts/reservation-end.ts); the wrapper is a cold file
    // (scripts/build.mjs); the warm supervisor's module is initialised where it is imported.
    const text = bundleText('exec');
    expect(text).not.toMatch(/zod/i);
    expect(text).not.toContain('function execInPane(');
    expect(text).toContain(lazily('exec-wrapper'));
    expect(bundleText('exec-wrapper')).toContain('function execInPane(');
    expect(text).toContain('Promise.resolve().then(()=>(init_exec_warm(),');
  });

  it('a job supervisor running `true` loads neither node:child_process, node:net nor the streams', async () => {
    // node:child_process (with node:net, dgram and the streams) and process.stdout and
    // process.stderr (the streams; node:net on a pipe) were a share of every job's supervisor: it
    // spawns through the process handle (exec-spawn.ts) and writes fd 2 itself. node:fs/promises
    // (readline, the directory streams, the watchers), node:os, node:timers/promises and rm's
    // recursive remover were loaded at its top for paths a headless job never takes.
    const loaded = await execTwiceProbed('j_probe', { DOGSLED_EXEC_SUPERVISOR: '1' }, 'ignore');
    expectSpawnedByHandle(loaded, [
      'child_process',
      'net',
      'stream',
      'dgram',
      'tty',
      'internal/fs/sync_write_stream',
      'fs/promises',
      'os',
      'timers/promises',
      'internal/readline/interface',
      'internal/fs/rimraf',
    ]);
  });

  it('a job supervisor whose job outlives its first samples reads /proc without node:fs/promises', async () => {
    // The memory samples (exec-usage.ts) read /proc through node:fs/promises: every job past its
    // first sample (50 ms) loaded it and started the thread pool, for a few reads of procfs.
    const loaded = await execTwiceProbed('j_sampled', { DOGSLED_EXEC_SUPERVISOR: '1' }, 'ignore', [
      'sleep',
      '0.3',
    ]);
    expectSpawnedByHandle(loaded, [
      'child_process',
      'net',
      'stream',
      'fs/promises',
      'internal/readline/interface',
    ]);
  });

  it("a pane's wrapper with no warm supervisor starts one through the process handle, loading no node:child_process", async () => {
    // No service here, so no supervisor.sock: the wrapper starts the job's supervisor itself, and
    // node:child_process (with node:net and the streams) was loaded for that one spawn, between the
    // record's read and the supervisor's start. The supervisor inherits the probe and writes the
    // file first: the wrapper, which waits for it, writes last.
    const loaded = await execTwiceProbed('j_pane', {}, 'pipe');
    expectSpawnedByHandle(loaded, [
      'child_process',
      'net',
      'stream',
      'dgram',
      'fs/promises',
      'os',
      'timers/promises',
    ]);
  });

  it('a cold `status --json` runs ssh through the process handle and pipes, loading no node:child_process', async () => {
    // Every peer of a caller without a service is one ssh (service/transport/openssh.ts): through
    // node:child_process that loaded node:net, dgram and the streams before the fork and ran their
    // code after it, where each page written that the child shared is a page fault. The fake ssh
    // answers as an unreachable host does (status 255, its words on stderr), and on stdout too:
    // both pipes are read to their end.
    const box = await sandbox();
    try {
      const probe = await moduleProbe(box.root);
      const bin = join(box.root, 'bin');
      await mkdir(bin);
      await writeFile(
        join(bin, 'ssh'),
        '#!/bin/sh\necho "stray words"\necho "ssh: connect to host p1 port 22: Connection refused" >&2\nexit 255\n',
        { mode: 0o755 },
      );
      await writeFile(box.configPath, '[[hosts]]\nid = "p1"\ntarget = "p1"\n');
      const env = { ...box.env, PATH: `${bin}:${box.env.PATH}` };
      for (let i = 0; i < 2; i++) {
        await rm(join(box.state, 'peers'), { recursive: true, force: true });
        const run = spawnSync(process.execPath, ['-r', probe.preload, CLI, 'status', '--json'], {
          env,
          encoding: 'utf8',
        });
        expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
        const peer = JSON.parse(run.stdout).hosts.find((host: { id: string }) => host.id === 'p1');
        expect(peer).toMatchObject({ reachable: false, unreachable: 'connection refused' });
      }
      expectSpawnedByHandle(await probe.loaded(), [
        'child_process',
        'net',
        'stream',
        'dgram',
        'internal/streams/readable',
      ]);
    } finally {
      await box.cleanup();
    }
  });

  it('--version and --help answer from the entry alone, as the full command line does', async () => {
    // Loading full.mjs (an ES module, through import()) and commander's declaration of every command
    // was most of what they cost; the help is commander's own text, rendered by the build.
    const box = await sandbox();
    try {
      const out = join(box.root, 'modules.txt');
      const probe = join(box.root, 'probe.cjs');
      await writeFile(
        probe,
        `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n') + '\\n'));`,
      );
      const run = async (args: string[]) =>
        (await execFileAsync(process.execPath, ['-r', probe, CLI, ...args], { env: box.env })).stdout;
      const full = (await runCli(['help'], box.env)).stdout;
      expect(full).toContain('Usage: dogsled [options] [command]');
      expect(await run(['--help'])).toBe(full);
      expect(await run(['-h'])).toBe(full);
      const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
      expect(await run(['--version'])).toBe(`${pkg.version}\n`);
      expect(await run(['-V'])).toBe(`${pkg.version}\n`);
      const loaded = (await readFile(out, 'utf8')).split('\n');
      // Node 24 loads the ES module loader for any CommonJS entry; the entry must add no more.
      const plain = join(box.root, 'plain.cjs');
      await writeFile(plain, '');
      await writeFile(out, '');
      await execFileAsync(process.execPath, ['-r', probe, plain], { env: box.env });
      const floor = new Set((await readFile(out, 'utf8')).split('\n'));
      const esm = 'NativeModule internal/modules/esm/translators';
      if (!floor.has(esm)) expect(loaded).not.toContain(esm);
      expect(loaded.filter((name) => name.includes('/esm/') && !floor.has(name))).toEqual([]);
    } finally {
      await box.cleanup();
    }
  });

  it("dist/dogsled.mjs, the entry's former name, still runs the CLI", async () => {
    const box = await sandbox();
    try {
      const { stdout } = await execFileAsync(
        process.execPath,
        [join(ROOT, 'dist', 'dogsled.mjs'), 'status', '--json'],
        { env: box.env },
      );
      expect(JSON.parse(stdout)).toBeTypeOf('object');
    } finally {
      await box.cleanup();
    }
  });
});

// The hot bundles compile through V8's code cache (cli/hot-loader.ts, code-cache/NAME-HASH.bin in the
// state dir). A cache is never trusted: whatever sits in its place, the command answers as it would
// without one, and a cache that can be replaced is. DOGSLED_TIMING=1 names what the loader did.
describe('the hot bundles’ code cache', () => {
  // NAME-<16 hex of the bundle's hash>.bin: each build keeps its own.
  const bundleHash = (name: string) =>
    /^\/\/ dogsled-bundle ([0-9a-f]+)\n/.exec(
      readFileSync(join(ROOT, 'dist', 'hot', `${name}.cjs`), 'utf8'),
    )?.[1] ?? '';
  // `status --json` on an empty state dir: the lean bundle answers it (cli/hot/status-json-lean.ts).
  const cacheOf = (box: Sandbox) =>
    join(box.state, 'code-cache', `status-json-lean-${bundleHash('status-json-lean').slice(0, 16)}.bin`);
  async function status(box: Sandbox): Promise<{ cache: string; written: boolean }> {
    const result = await runCli(['status', '--json'], { ...box.env, DOGSLED_TIMING: '1' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toBeTypeOf('object');
    const lines = result.stderr.split('\n').filter(Boolean);
    // Nothing but the timing marks: a refused cache is not the user's business.
    expect(lines.filter((line) => !line.startsWith('timing '))).toEqual([]);
    // The bundle's: the dispatcher before it (hot/dispatch.ts) keeps a cache of its own.
    const cache = /compiled \(code cache: ([^)]+)\) status-json-lean$/m.exec(result.stderr)?.[1];
    if (cache === undefined) throw new Error(`no compile mark in ${result.stderr}`);
    return { cache, written: /^timing .* code cache written status-json-lean$/m.test(result.stderr) };
  }

  it('is written after the first run (0600 in a 0700 dir) and used by the next', async () => {
    const box = await sandbox();
    try {
      await mkdir(box.state);
      expect(await status(box)).toEqual({ cache: 'absent', written: true });
      expect((await stat(cacheOf(box))).mode & 0o777).toBe(0o600);
      expect((await stat(join(box.state, 'code-cache'))).mode & 0o777).toBe(0o700);
      expect(await status(box)).toEqual({ cache: 'used', written: false });
    } finally {
      await box.cleanup();
    }
  });

  it('the dispatcher keeps a cache per command word, and a damaged one changes no answer', async () => {
    // hot/dispatch.ts goes through the same loader and reader as a command's bundle: whatever sits
    // in place of its cache, the command answers as it does without one.
    const box = await sandbox();
    try {
      await mkdir(box.state);
      const dispatcherOf = (word: string) =>
        join(box.state, 'code-cache', `dispatch-${word}-${bundleHash('dispatch').slice(0, 16)}.bin`);
      const plain = await runCli(['status', '--json'], box.env);
      expect(plain.code).toBe(0);
      const good = await readFile(dispatcherOf('status'));
      // A word that is not a hot command's shares one name: no file is named after what a user typed.
      expect((await runCli(['help'], box.env)).code).toBe(0);
      expect(
        (await readdir(join(box.state, 'code-cache'))).filter((name) => name.startsWith('dispatch')).sort(),
      ).toEqual(
        [basename(dispatcherOf('status')), `dispatch-${bundleHash('dispatch').slice(0, 16)}.bin`].sort(),
      );
      const damaged = Buffer.from(good);
      const at = good.length - 100;
      damaged[at] = (damaged[at] ?? 0) ^ 0x5a;
      for (const [what, make, mark] of [
        ['damaged', () => writeFile(dispatcherOf('status'), damaged), 'damaged'],
        [
          'a FIFO',
          () => execFileAsync('mkfifo', [dispatcherOf('status')]).then(() => undefined),
          'not a regular file',
        ],
        ['a directory', () => mkdir(dispatcherOf('status')), 'not a regular file'],
      ] as const) {
        await rm(dispatcherOf('status'), { recursive: true, force: true });
        await make();
        const run = await runCli(['status', '--json'], { ...box.env, DOGSLED_TIMING: '1' });
        expect({ what, code: run.code }).toEqual({ what, code: 0 });
        expect(run.stderr).toContain(`compiled (code cache: ${mark}) dispatch`);
        expect(Object.keys(JSON.parse(run.stdout))).toEqual(Object.keys(JSON.parse(plain.stdout)));
      }
    } finally {
      await box.cleanup();
    }
  });

  it('a run that fails writes none, and a command without a state dir makes none', async () => {
    const box = await sandbox();
    try {
      const bad = await runCli(['status', '--json', '--line'], box.env);
      expect(bad.code).toBe(2);
      await mkdir(box.state);
      expect((await runCli(['status', '--json', '--line'], box.env)).code).toBe(2);
      expect(await readdir(box.state)).toEqual([]);
    } finally {
      await box.cleanup();
    }
  });

  it('refuses whatever is not its own, answers anyway and replaces what it can', async () => {
    const box = await sandbox();
    try {
      await mkdir(box.state);
      await status(box);
      const good = await readFile(cacheOf(box));
      const keyEnd = good.indexOf(10);
      const dataStart = good.indexOf(10, keyEnd + 1) + 1;
      const length = (good.length - dataStart) / 2;
      const cases: Array<[string, string, () => Promise<void>]> = [
        // V8 does not checksum a cache in a release build: this byte would abort the process.
        [
          'a byte of the data V8 would get',
          'damaged',
          async () => {
            const bad = Buffer.from(good);
            const at = dataStart + Math.floor(length / 2);
            bad[at] = (bad[at] ?? 0) ^ 0x5a;
            await writeFile(cacheOf(box), bad);
          },
        ],
        ['truncated', 'truncated', () => writeFile(cacheOf(box), good.subarray(0, good.length - 1000))],
        ['empty', 'foreign key', () => writeFile(cacheOf(box), '')],
        [
          'another bundle',
          'foreign key',
          () =>
            writeFile(
              cacheOf(box),
              Buffer.concat([Buffer.from('dogsled-code-cache 1 other'), good.subarray(keyEnd)]),
            ),
        ],
        [
          'not V8 data',
          'rejected by V8',
          async () => {
            const junk = Buffer.alloc(4096, 'x');
            await writeFile(
              cacheOf(box),
              Buffer.concat([good.subarray(0, keyEnd + 1), Buffer.from(`${junk.length}\n`), junk, junk]),
            );
          },
        ],
        ['a FIFO', 'not a regular file', () => execFileAsync('mkfifo', [cacheOf(box)]).then(() => undefined)],
        [
          'a symlink to a good cache',
          'not a regular file',
          async () => {
            await writeFile(`${cacheOf(box)}.good`, good);
            await symlink(`${cacheOf(box)}.good`, cacheOf(box));
          },
        ],
        [
          "another user's file",
          "another user's file",
          async () => {
            await writeFile(cacheOf(box), good);
            await chown(cacheOf(box), 65534, 65534);
          },
        ],
      ];
      // Replaced by a cache of our own: a file of this user with the good key and two equal copies.
      const replaced = async () => {
        const info = await lstat(cacheOf(box));
        const text = await readFile(cacheOf(box));
        const start = text.indexOf(10, text.indexOf(10) + 1) + 1;
        const half = (text.length - start) / 2;
        return (
          info.isFile() &&
          info.uid === process.getuid?.() &&
          text.subarray(0, keyEnd).equals(good.subarray(0, keyEnd)) &&
          text.subarray(start, start + half).equals(text.subarray(start + half))
        );
      };
      for (const [what, refused, make] of cases) {
        await rm(cacheOf(box), { recursive: true, force: true });
        await make();
        expect({ what, ...(await status(box)) }).toEqual({ what, cache: refused, written: true });
        expect({ what, replaced: await replaced() }).toEqual({ what, replaced: true });
      }
      expect(await status(box)).toEqual({ cache: 'used', written: false });
      // A directory cannot be replaced by a file: refused on every run, and every run answers.
      await rm(cacheOf(box), { force: true });
      await mkdir(cacheOf(box));
      for (let i = 0; i < 2; i++) {
        expect(await status(box)).toEqual({ cache: 'not a regular file', written: false });
      }
      expect((await stat(cacheOf(box))).isDirectory()).toBe(true);
    } finally {
      await box.cleanup();
    }
  });

  it("leaves another build's cache of the same command, and drops one unused for a week", async () => {
    const box = await sandbox();
    try {
      const dir = join(box.state, 'code-cache');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // Another build's caches: one written today, one a week and a day ago, and one from before
      // caches named their build; a cache of another command, however old, is not this one's to drop.
      const fresh = join(dir, 'status-json-lean-0123456789abcdef.bin');
      const stale = join(dir, 'status-json-lean-fedcba9876543210.bin');
      const legacy = join(dir, 'status-json-lean.bin');
      const other = join(dir, 'place-fedcba9876543210.bin');
      for (const file of [fresh, stale, legacy, other]) await writeFile(file, 'dogsled-code-cache 1 other\n');
      const weekAgo = new Date(Date.now() - 8 * 86_400_000);
      for (const file of [stale, legacy, other]) await utimes(file, weekAgo, weekAgo);
      expect(await status(box)).toEqual({ cache: 'absent', written: true });
      const kept = (await readdir(dir)).filter((name) => !name.startsWith('dispatch-'));
      expect(kept.sort()).toEqual([basename(cacheOf(box)), basename(fresh), basename(other)].sort());
      // Its own cache is used next time, whatever the other build does with its own.
      expect(await status(box)).toEqual({ cache: 'used', written: false });
    } finally {
      await box.cleanup();
    }
  });

  it('every hot bundle starts with the hash of the rest, which keys its cache', () => {
    for (const name of HOT) {
      const text = readFileSync(join(ROOT, 'dist', 'hot', `${name}.cjs`));
      const newline = text.indexOf(10);
      const hash = createHash('sha256')
        .update(text.subarray(newline + 1))
        .digest('hex');
      expect(text.subarray(0, newline).toString()).toBe(`// dogsled-bundle ${hash}`);
    }
  });
});

/**
 * The built-in modules `exec` loaded over two runs of a fresh job running `command` (`true` unless
 * given; a preload writes them at exit), each run exiting 0 with an empty stderr and the job's record
 * ending 0, its memory measured when the command ran long enough to be sampled. `env` is
 * added to the sandbox's; stderr is a pipe, as a launcher gives it (process.stderr there would be
 * node:net's).
 */
async function execTwiceProbed(
  prefix: string,
  env: NodeJS.ProcessEnv,
  stdout: 'ignore' | 'pipe',
  command: string[] = ['true'],
): Promise<string[]> {
  const box = await sandbox();
  try {
    const probe = await moduleProbe(box.root);
    const paths = statePaths(box.state);
    await mkdir(paths.jobs, { recursive: true, mode: 0o700 });
    for (let i = 0; i < 2; i++) {
      const job = jobFixture({ id: `${prefix}${i}`, command, cwd: box.root, owner: null });
      await writeJobRecord(paths, job);
      const run = spawnSync(process.execPath, ['-r', probe.preload, CLI, 'exec', job.id], {
        env: { ...box.env, ...env },
        stdio: ['ignore', stdout, 'pipe'],
      });
      expect({ status: run.status, stderr: String(run.stderr) }).toEqual({ status: 0, stderr: '' });
      const ended = await readJobRecord(paths, job.id);
      expect(ended.exit_code).toBe(0);
      if (command[0] === 'sleep') expect(ended.peak_rss_bytes).toBeGreaterThan(0);
    }
    return await probe.loaded();
  } finally {
    await box.cleanup();
  }
}

/**
 * Spawned through the process handle with none of `absent` loaded; through node:child_process on a
 * Node major the tests do not cover (node-binding.ts).
 */
function expectSpawnedByHandle(loaded: readonly string[], absent: readonly string[]): void {
  if (!spawnsByHandle()) {
    expect(loaded).toContain('NativeModule child_process');
    return;
  }
  expect(loaded).toContain('Internal Binding process_wrap');
  for (const name of absent) expect(loaded).not.toContain(`NativeModule ${name}`);
}
