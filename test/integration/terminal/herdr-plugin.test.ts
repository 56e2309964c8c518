// The Herdr plugin as `herdr plugin install oisin-ee/dogsled --ref vX.Y.Z` sees it: the root
// herdr-plugin.toml against the fields Herdr requires (CONTRACT §5.1, through the fake Herdr's
// validator, which follows Herdr's manifest.rs), the names the board's docking relies on, and its
// build step, plugin/fetch.sh, run as Herdr runs it (the manifest's argv in the checkout's root)
// against a local release server: a release whose tarball matches its SHA-256 is installed as
// bin/dogsled, a tampered or unchecked one is refused in one line with nothing installed.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLUGIN_ID, SIDEBAR_ENTRYPOINT } from '../../../service/board/dock.js';
import { installLines } from '../../../service/core/install/install-lines.js';
import { loadManifest } from '../../fakes/herdr/lib/manifest.mjs';
import { ROOT } from '../../helpers/cli.js';
import { packedRelease } from '../../helpers/pack.js';
import { tempDir } from '../../helpers/tree.js';

const run = promisify(execFile);
// biome-ignore lint/suspicious/noExplicitAny: the manifest as parsed TOML, edited field by field
type Toml = Record<string, any>;
const MANIFEST = join(ROOT, 'herdr-plugin.toml');
const VERSION = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version as string;
const TARBALL = `dogsled-${VERSION}.tgz`;

describe('herdr-plugin.toml', () => {
  it('passes the validation Herdr runs on link and install, declaring its platforms', () => {
    const info = loadManifest(MANIFEST, { herdrVersion: '0.8.0' });
    expect(info).toMatchObject({ plugin_id: PLUGIN_ID, name: 'Dogsled', min_herdr_version: '0.8.0' });
    expect(info.warnings).toBeUndefined();
    expect(info.platforms).toEqual(['linux', 'macos']);
  });

  it('is refused without any of the fields Herdr requires, so passing the validation means something', async () => {
    const dir = await tempDir('dogsled-manifest-');
    const drop: Array<[string, (m: Toml) => void, string]> = [
      ['id', (m) => delete m.id, 'invalid_plugin_id'],
      ['name', (m) => delete m.name, 'invalid_plugin_name'],
      ['version', (m) => delete m.version, 'invalid_plugin_version'],
      ['min_herdr_version', (m) => delete m.min_herdr_version, 'invalid_plugin_min_herdr_version'],
      ['a pane title', (m) => delete m.panes[0].title, 'invalid_plugin_pane_title'],
      ['a pane command', (m) => delete m.panes[0].command, 'invalid_plugin_command'],
      ['an action title', (m) => delete m.actions[0].title, 'invalid_plugin_action_title'],
      ['an action command', (m) => delete m.actions[0].command, 'invalid_plugin_command'],
    ];
    for (const [what, change, code] of drop) {
      const manifest = parse(await readFile(MANIFEST, 'utf8')) as Toml;
      change(manifest);
      const file = join(dir, 'herdr-plugin.toml');
      await writeFile(file, stringify(manifest));
      expect(() => loadManifest(file, { herdrVersion: '0.8.0' }), what).toThrow(
        expect.objectContaining({ code }),
      );
    }
  });

  it('has the sidebar pane as a split and the toggle action, the names board --open uses', async () => {
    const manifest = parse(await readFile(MANIFEST, 'utf8')) as Record<string, unknown>;
    const panes = manifest.panes as Array<Record<string, unknown>>;
    const actions = manifest.actions as Array<Record<string, unknown>>;
    expect(panes).toEqual([expect.objectContaining({ id: SIDEBAR_ENTRYPOINT, placement: 'split' })]);
    // Herdr refuses a size on anything but a popup; a split's width is set by board --open.
    expect(panes[0]).not.toHaveProperty('width');
    expect(panes[0]?.command).toEqual(['bin/dogsled', 'sidebar']);
    expect(actions).toEqual([
      expect.objectContaining({
        id: 'toggle',
        contexts: ['global'],
        command: ['bin/dogsled', 'board', '--toggle'],
      }),
    ]);
    expect(String(actions[0]?.id)).not.toContain('.');
  });

  it('names the version of this checkout, a Herdr no newer than the contract snapshot, and fetch.sh', async () => {
    const manifest = parse(await readFile(MANIFEST, 'utf8')) as Record<string, unknown>;
    expect(manifest.version).toBe(VERSION);
    expect(() => loadManifest(MANIFEST, { herdrVersion: '0.7.9' })).toThrow(/requires Herdr 0\.8\.0/);
    expect(manifest.build).toEqual([{ command: ['sh', 'plugin/fetch.sh'] }]);
    expect((await stat(join(ROOT, 'plugin', 'fetch.sh'))).isFile()).toBe(true);
  });

  it('is installed by one line naming this version, and no file says <owner>/<repo> instead', async () => {
    expect(installLines(VERSION).herdr).toBe(`herdr plugin install oisin-ee/dogsled --ref v${VERSION} --yes`);
    for (const file of ['README.md', 'plugins/pi/README.md', 'herdr-plugin.toml']) {
      expect(await readFile(join(ROOT, file), 'utf8'), file).not.toContain('<owner>/');
    }
  });
});

/** A release server: serves `files` by path, 404 for anything else; remembers what was asked. */
async function releaseServer(
  files: Map<string, Buffer>,
): Promise<{ url: string; asked: string[]; server: Server }> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '';
    asked.push(path);
    const body = files.get(path);
    response.writeHead(body ? 200 : 404).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

describe('plugin/fetch.sh, the build step', () => {
  const files = new Map<string, Buffer>();
  let release: Awaited<ReturnType<typeof releaseServer>>;
  let good: Buffer;
  let goodSum: Buffer;

  beforeAll(async () => {
    const { tarball, checksum } = await packedRelease();
    good = await readFile(tarball);
    goodSum = await readFile(checksum);
    release = await releaseServer(files);
  }, 60_000);
  afterAll(() => new Promise<void>((resolve) => release?.server.close(() => resolve())));

  function publish(tarball: Buffer | undefined, checksum: Buffer | undefined): void {
    files.clear();
    if (tarball) files.set(`/v${VERSION}/${TARBALL}`, tarball);
    if (checksum) files.set(`/v${VERSION}/${TARBALL}.sha256`, checksum);
  }

  /** What `herdr plugin install` clones: the manifest and plugin/ (no dist: it is not committed). */
  async function checkout(): Promise<string> {
    const root = join(await tempDir('dogsled-plugin-'), "it's a checkout");
    await mkdir(join(root, 'plugin'), { recursive: true });
    await copyFile(MANIFEST, join(root, 'herdr-plugin.toml'));
    await copyFile(join(ROOT, 'plugin', 'fetch.sh'), join(root, 'plugin', 'fetch.sh'));
    return root;
  }

  /** The manifest's build step, as Herdr runs it: its argv, in the manifest's directory, stdin null. */
  async function build(root: string, env: NodeJS.ProcessEnv = {}) {
    const manifest = parse(await readFile(join(root, 'herdr-plugin.toml'), 'utf8')) as Toml;
    const [file, ...args] = manifest.build[0].command as string[];
    // The tarball's dependencies come from npm's cache when it has them (CI filled it with npm ci).
    const childEnv = {
      ...process.env,
      DOGSLED_RELEASES: release.url,
      npm_config_prefer_offline: 'true',
      ...env,
    };
    return run(file!, args, { cwd: root, env: childEnv, timeout: 120_000 }).then(
      (done) => ({ code: 0, ...done }),
      (failed) => ({
        code: failed.code as number,
        stdout: failed.stdout as string,
        stderr: failed.stderr as string,
      }),
    );
  }

  it('installs the release whose tarball matches its SHA-256, as bin/dogsled of that version', async () => {
    publish(good, goodSum);
    const root = await checkout();
    const built = await build(root);
    expect(built.stderr).toContain(
      `bin/dogsled runs dogsled ${VERSION} (${release.url}/v${VERSION}/${TARBALL}, SHA-256 `,
    );
    expect(built.code).toBe(0);
    const version = await run(join(root, 'bin', 'dogsled'), ['--version']);
    expect(version.stdout.trim()).toBe(VERSION);
    expect(await readFile(join(root, 'bin', 'dogsled'), 'utf8')).toContain(
      join(root, 'plugin', 'npm', 'node_modules', 'dogsled', 'dist', 'dogsled.cjs').replace("'", "'\\''"),
    );
    expect(release.asked).toEqual(
      expect.arrayContaining([`/v${VERSION}/${TARBALL}`, `/v${VERSION}/${TARBALL}.sha256`]),
    );

    // A tampered tarball later: refused in one line, and the install that was there stays whole.
    const before = await readdir(join(root, 'plugin', 'npm', 'node_modules', 'dogsled', 'dist'));
    const tampered = Buffer.from(good);
    tampered[tampered.length >> 1] = (tampered[tampered.length >> 1] ?? 0) ^ 0xff;
    publish(tampered, goodSum);
    const refused = await build(root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^dogsled plugin: ${TARBALL} does not match its SHA-256 \\(expected [0-9a-f]{64}, got [0-9a-f]{64}\\): nothing installed\\n$`,
      ),
    );
    expect(await readdir(join(root, 'plugin', 'npm', 'node_modules', 'dogsled', 'dist'))).toEqual(before);
    expect((await run(join(root, 'bin', 'dogsled'), ['--version'])).stdout.trim()).toBe(VERSION);
    expect((await readdir(join(root, 'plugin'))).sort()).toEqual(['fetch.sh', 'npm']);
  }, 180_000);

  it('refuses a tampered tarball in a fresh checkout in one line, installing nothing', async () => {
    const tampered = Buffer.concat([good, Buffer.from('\0')]);
    publish(tampered, goodSum);
    const root = await checkout();
    const refused = await build(root);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split('\n')).toEqual([expect.stringMatching(/does not match its SHA-256/), '']);
    expect((await readdir(root)).sort()).toEqual(['herdr-plugin.toml', 'plugin']);
    expect(await readdir(join(root, 'plugin'))).toEqual(['fetch.sh']);
  });

  it('refuses a release without its checksum file, or one that holds no SHA-256', async () => {
    for (const [checksum, why] of [
      [undefined, /\.sha256 answered 404: the release has no checksum, nothing installed\n$/],
      [Buffer.from('\x1b[31mnot a sum\n'), /\.sha256 holds no SHA-256: nothing installed\n$/],
    ] as const) {
      publish(good, checksum);
      const root = await checkout();
      const refused = await build(root);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(why);
      expect(refused.stderr.split('\n')).toHaveLength(2);
      expect((await readdir(root)).sort()).toEqual(['herdr-plugin.toml', 'plugin']);
    }
  });

  it('falls back to npm at the manifest version when the release does not exist', async () => {
    publish(undefined, undefined);
    const root = await checkout();
    // npm stands in: it records how it was called and installs a package of that name and version.
    const bin = join(root, '..', 'fake-bin');
    const log = join(root, '..', 'npm.log');
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, 'npm'),
      [
        '#!/bin/sh',
        `echo "$*" >> '${log}'`,
        'while [ "$1" != --prefix ]; do shift; done; prefix=$2',
        'pkg="$prefix/node_modules/@me/dogsled"; mkdir -p "$pkg/dist"',
        `echo '{"name":"@me/dogsled","version":"${VERSION}"}' > "$pkg/package.json"`,
        `echo 'console.log("from npm", process.argv.slice(2).join(" "))' > "$pkg/dist/dogsled.cjs"`,
        '',
      ].join('\n'),
    );
    await chmod(join(bin, 'npm'), 0o755);
    const built = await build(root, {
      PATH: `${bin}:${process.env.PATH}`,
      DOGSLED_NPM_PACKAGE: '@me/dogsled',
    });
    expect(built.stderr).toContain(
      `no release at ${release.url}/v${VERSION}/${TARBALL}; installing @me/dogsled@${VERSION} from npm`,
    );
    expect(built.code).toBe(0);
    expect(await readFile(log, 'utf8')).toMatch(
      new RegExp(`^install --prefix .* @me/dogsled@${VERSION}\\n$`),
    );
    expect((await run(join(root, 'bin', 'dogsled'), ['sidebar', '--owner', 'w1:p1'])).stdout).toBe(
      'from npm sidebar --owner w1:p1\n',
    );
  });

  it('runs the build of its own directory when that is the manifest version (a built checkout, the npm package)', async () => {
    publish(undefined, undefined);
    for (const [version, local] of [
      [VERSION, true],
      ['9.9.9', false],
    ] as const) {
      const root = await checkout();
      await mkdir(join(root, 'dist'));
      await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'dogsled', version }));
      await writeFile(
        join(root, 'dist', 'dogsled.cjs'),
        'console.log("local", process.argv.slice(2).join(" "))\n',
      );
      release.asked.length = 0;
      const built = await build(root, {
        DOGSLED_NPM_PACKAGE: 'dogsled-not-on-this-registry',
        npm_config_offline: 'true',
      });
      if (local) {
        expect(built.code).toBe(0);
        expect(built.stderr).toBe(
          `dogsled plugin: bin/dogsled runs dogsled ${VERSION} (this directory's build)\n`,
        );
        expect(release.asked).toEqual([]);
        expect((await run(join(root, 'bin', 'dogsled'), ['--x'])).stdout).toBe('local --x\n');
      } else {
        // Another version's build is not this manifest's: it goes to the release (absent here).
        expect(built.code).toBe(1);
        expect(release.asked).toEqual([`/v${VERSION}/${TARBALL}`]);
      }
    }
  });

  it('writes a checksum file that sha256sum reads', async () => {
    const { tarball, checksum } = await packedRelease();
    const line = await readFile(checksum, 'utf8');
    const hash = createHash('sha256')
      .update(await readFile(tarball))
      .digest('hex');
    expect(line).toBe(`${hash}  ${TARBALL}\n`);
    const checked = await run('sha256sum', ['-c', checksum], { cwd: join(tarball, '..') });
    expect(checked.stdout).toBe(`${TARBALL}: OK\n`);
  });
});
