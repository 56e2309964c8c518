// blessed's code cache (sidebar/blessed-cache.ts): a real sidebar in a real tmux writes it after its
// first frame and compiles blessed from it at the next start; a cache in doubt (damaged, foreign,
// not a file, an index that does not add up, V8 data that is not V8's) costs only a plain compile:
// the board paints and keys still move its selection. blessed edited in place under the same
// version and length (a patch) is compiled from its new source, never from the old one's data.

import { spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import { startTmux, type Tmux, type TmuxServer } from '../../helpers/tmux.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { OWNER, openSidebar, writeAfternoon } from './sidebar-fixtures.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const NODE_CACHE =
  typeof (process.getBuiltinModule?.('node:module') as { enableCompileCache?: unknown })
    ?.enableCompileCache === 'function';
const NODE_FLUSH =
  typeof (process.getBuiltinModule?.('node:module') as { flushCompileCache?: unknown })?.flushCompileCache ===
  'function';
let box: Sandbox;
let server: TmuxServer;
let screens: Tmux[];

beforeAll(async () => {
  if (HAS_TMUX) server = await startTmux(await tempDir('dogsled-tmux-'), `bc${process.pid}`);
});
afterAll(async () => server?.kill());
beforeEach(async () => {
  box = await sandbox();
  screens = [];
  await writeAfternoon(box.state, Date.now());
});
afterEach(async () => {
  for (const screen of screens) await screen.kill();
  await box.cleanup();
});

const cacheDir = () => join(box.state, 'code-cache');

async function cacheFile(): Promise<string | undefined> {
  const names = await readdir(cacheDir()).catch(() => [] as string[]);
  const name = names.find((n) => /^sidebar-blessed-[0-9a-f]{16}\.bin$/.test(n));
  return name === undefined ? undefined : join(cacheDir(), name);
}

/** A sidebar drawn, its selection moved down and back up by keys, then closed. */
async function sidebarWorks(from: { cli?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  const screen = await openSidebar({ server, box, width: 38, height: 45, ...from });
  screens.push(screen);
  const marked = (rows: string[]) => rows.findIndex((r) => r.startsWith('│▌'));
  const first = marked(await screen.capture());
  expect(first).toBeGreaterThan(0);
  await screen.keys('Down');
  const second = marked(await screen.waitFor('the selection down', (rows) => marked(rows) > first));
  await screen.keys('Up');
  await screen.waitFor('the selection back up', (rows) => marked(rows) === first);
  expect(second).toBeGreaterThan(first);
}

/**
 * A cache as the sidebar writes it for `key`: the key line, the length, the data twice, the data an
 * index line whose sizes add up to the rest, which is not the filler a test wrote.
 */
function fresh(file: Buffer, key: string): boolean {
  const keyEnd = file.indexOf(10);
  const lengthEnd = file.indexOf(10, keyEnd + 1);
  const length = Number(file.toString('latin1', keyEnd + 1, lengthEnd));
  if (file.toString('utf8', 0, keyEnd) !== key || file.length !== lengthEnd + 1 + 2 * length) return false;
  const copy = file.subarray(lengthEnd + 1, lengthEnd + 1 + length);
  if (!copy.equals(file.subarray(lengthEnd + 1 + length))) return false;
  const indexEnd = copy.indexOf(10);
  try {
    const index = JSON.parse(copy.toString('utf8', 0, indexEnd)) as Array<{ bytes: number }>;
    const blobs = copy.subarray(indexEnd + 1);
    return (
      index.reduce((sum, e) => sum + e.bytes, 0) === blobs.length &&
      !blobs.subarray(0, 64).equals(FILLER.subarray(0, 64))
    );
  } catch {
    return false;
  }
}

const FILLER = Buffer.alloc(1 << 20, 0x5a);

/** The cache a first start writes (after its first frame), as `file` and its text. */
async function written(
  from: { cli?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ file: string; data: Buffer }> {
  await sidebarWorks(from);
  const file = await waitFor('the blessed code cache', () => cacheFile(), { timeoutMs: 20_000 });
  return { file, data: await readFile(file) };
}

/** A sidebar started by `sh` with DOGSLED_TIMING on, its stages written to `log`; resolves once drawn. */
async function timedSidebar(log: string): Promise<string> {
  const screen = await server.open({
    dir: box.root,
    width: 38,
    height: 45,
    argv: ['/bin/sh', '-c', 'exec "$0" "$1" sidebar --owner "$2" 2>"$3"', process.execPath, CLI, OWNER, log],
    env: {
      HOME: box.home,
      DOGSLED_STATE: box.state,
      DOGSLED_TIMING: '1',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      PATH: process.env.PATH,
      HERDR_CONFIG_PATH: join(box.root, 'herdr-config.toml'),
    },
  });
  screens.push(screen);
  await screen.waitFor('the first frame', (rows) => rows.some((r) => r.includes('Agents & Jobs')));
  return waitFor('the first frame marked', async () => {
    const text = await readFile(log, 'utf8');
    return text.includes('sidebar first frame') ? text : undefined;
  });
}

describe.skipIf(!HAS_TMUX)("the dispatcher's code cache of a sidebar", () => {
  it('is written once the board is drawn, though its pane is then closed, and used by the next start', async () => {
    // Closed by its pane (a signal), a sidebar never exits 0: its start-up is when the cache is written.
    const first = join(box.root, 'first.log');
    expect(await timedSidebar(first)).toMatch(/^timing .* compiled \(code cache: absent\) dispatch$/m);
    await waitFor('the dispatcher code cache written', async () =>
      /^timing .* code cache written dispatch-sidebar$/m.test(await readFile(first, 'utf8'))
        ? true
        : undefined,
    );
    for (const screen of screens.splice(0)) await screen.kill();
    const second = await timedSidebar(join(box.root, 'second.log'));
    expect(second).toMatch(/^timing .* compiled \(code cache: used\) dispatch$/m);
  });
});

describe.skipIf(!HAS_TMUX || !NODE_FLUSH)("Node's compile cache of a sidebar (Node 22.10 and later)", () => {
  it("holds blessed's files once the board is drawn, though its pane is then closed", async () => {
    // Node writes its compile cache at a normal exit, which a sidebar closed with its pane (a signal)
    // never reaches: the sidebar flushes it once the first frame is drawn.
    const log = join(box.root, 'first.log');
    await timedSidebar(log);
    await waitFor('the compile cache flushed', async () =>
      /^timing .* node compile cache flushed/m.test(await readFile(log, 'utf8')) ? true : undefined,
    );
    for (const screen of screens.splice(0)) await screen.kill();
    const compile = join(cacheDir(), 'node');
    const releases = await readdir(compile);
    const files = (await Promise.all(releases.map((r) => readdir(join(compile, r))))).flat();
    // blessed is some 50 CommonJS files, each an entry of its own.
    expect(files.length).toBeGreaterThan(20);
    expect((await stat(compile)).mode & 0o777).toBe(0o700);
    await sidebarWorks();
  });
});

describe.skipIf(!HAS_TMUX || NODE_CACHE)("blessed's code cache (Node 20 and 21)", () => {
  it('is written after the first frame and used by the next start, which writes nothing', async () => {
    const { file } = await written();
    const before = await stat(file);
    await sidebarWorks();
    // The second start compiled every file it loaded from the cache: nothing to write again.
    const after = await stat(file);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ino).toBe(before.ino);
  });

  it('a cache in doubt costs a plain compile and is written anew', async () => {
    const { file, data } = await written();
    const keyEnd = data.indexOf(10);
    const lengthEnd = data.indexOf(10, keyEnd + 1);
    const head = data.subarray(0, lengthEnd + 1);
    const envelope = (payload: Buffer) =>
      Buffer.concat([data.subarray(0, keyEnd + 1), Buffer.from(`${payload.length}\n`), payload, payload]);
    const payload = data.subarray(lengthEnd + 1, lengthEnd + 1 + (data.length - head.length) / 2);
    const indexEnd = payload.indexOf(10);
    const index = JSON.parse(payload.toString('utf8', 0, indexEnd)) as Array<{ bytes: number }>;
    const garbage = FILLER.subarray(0, payload.length - indexEnd - 1);
    const key = data.toString('utf8', 0, keyEnd);
    const hostile: Array<[string, () => Promise<void>]> = [
      // The second copy differs from the first by one byte.
      [
        'damaged',
        () => writeFile(file, Buffer.concat([data.subarray(0, -1), Buffer.from([data.at(-1)! ^ 1])])),
      ],
      ['another key', () => writeFile(file, Buffer.concat([Buffer.from('x'), data]))],
      [
        'an index that is not JSON',
        () => writeFile(file, envelope(Buffer.concat([Buffer.from('{\n'), garbage]))),
      ],
      [
        'an index longer than its data',
        () =>
          writeFile(
            file,
            envelope(
              Buffer.concat([
                Buffer.from(`${JSON.stringify(index.map((e) => ({ ...e, bytes: e.bytes + 1 })))}\n`),
                garbage,
              ]),
            ),
          ),
      ],
      // An index that adds up over bytes that are not V8's: V8 refuses them.
      [
        'data that is not V8 data',
        () => writeFile(file, envelope(Buffer.concat([payload.subarray(0, indexEnd + 1), garbage]))),
      ],
      [
        'a directory',
        async () => {
          await rm(file);
          await mkdir(file);
        },
      ],
      [
        'a FIFO',
        async () => {
          await rm(file, { recursive: true });
          expect(spawnSync('mkfifo', [file]).status).toBe(0);
        },
      ],
    ];
    for (const [what, make] of hostile) {
      await make();
      for (const screen of screens.splice(0)) await screen.kill();
      await sidebarWorks().catch((error: unknown) => {
        throw new Error(`with ${what} in the cache's place: ${error}`);
      });
      if (what === 'a directory' || what === 'a FIFO') continue;
      // A regular file in doubt is replaced by a good one once the frame is drawn.
      await waitFor(
        `the cache written anew after ${what}`,
        async () => ((await stat(file)).isFile() && fresh(await readFile(file), key) ? true : undefined),
        { timeoutMs: 20_000 },
      );
    }
    await rm(file, { recursive: true, force: true });
    // Eight sidebar starts, each a Node start with blessed compiled from source on a shared machine.
  }, 120_000);

  it('blessed edited in place (same version, same length) is compiled from its new source', async () => {
    // A checkout of its own: this build, and a copy of blessed beside the other packages (linked).
    const root = await tempDir('dogsled-blessed-edit-');
    const checkout = dirname(dirname(CLI));
    await cp(join(checkout, 'dist'), join(root, 'dist'), { recursive: true });
    await cp(join(checkout, 'package.json'), join(root, 'package.json'));
    await mkdir(join(root, 'node_modules'));
    for (const name of await readdir(join(checkout, 'node_modules'))) {
      if (name === 'blessed') continue;
      await symlink(join(checkout, 'node_modules', name), join(root, 'node_modules', name));
    }
    await cp(join(checkout, 'node_modules', 'blessed'), join(root, 'node_modules', 'blessed'), {
      recursive: true,
    });
    const cli = join(root, 'dist', 'dogsled.cjs');
    const mark = join(root, 'edited');
    const env = { BLESSED_EDIT_MARK: mark };
    const { file } = await written({ cli, env });
    const before = await stat(file);
    // screen.js's licence comment made a statement of the same length, run when the module loads.
    const screenJs = join(root, 'node_modules', 'blessed', 'lib', 'widgets', 'screen.js');
    const source = await readFile(screenJs, 'utf8');
    const header = source.slice(0, source.indexOf('*/') + 2);
    const code = "require('fs').writeFileSync(process.env.BLESSED_EDIT_MARK, 'x');/*";
    const edited = `${code}${' '.repeat(header.length - code.length - 2)}*/`;
    expect(edited.length).toBe(header.length);
    await writeFile(screenJs, edited + source.slice(header.length));
    for (const screen of screens.splice(0)) await screen.kill();
    await sidebarWorks({ cli, env });
    // The old data would have run the old top level (a comment): the mark is the new source's.
    expect((await stat(mark)).isFile()).toBe(true);
    // And the cache is written anew for the edited file.
    await waitFor(
      'the cache written anew for the edit',
      async () => ((await stat(file)).mtimeMs !== before.mtimeMs ? true : undefined),
      { timeoutMs: 20_000 },
    );
    await rm(root, { recursive: true, force: true });
    // Three sidebar starts and a copy of the build.
  }, 120_000);
});
