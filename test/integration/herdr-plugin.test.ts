// plugins/herdr: the manifest against the fields Herdr requires (CONTRACT §5.1, through the fake
// Herdr's validator, which follows Herdr's manifest.rs), the names the board's docking relies on,
// and the build step that makes bin/dogsled for the manifest's version (with a stand-in npm).

import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { PLUGIN_ID, SIDEBAR_ENTRYPOINT } from '../../service/board/dock.js';
import { loadManifest } from '../fakes/herdr/lib/manifest.mjs';
import { ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';

const run = promisify(execFile);
// biome-ignore lint/suspicious/noExplicitAny: the manifest as parsed TOML, edited field by field
type Toml = Record<string, any>;
const PLUGIN = join(ROOT, 'plugins', 'herdr');
const MANIFEST = join(PLUGIN, 'herdr-plugin.toml');

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

  it('names the version of this checkout and a Herdr no newer than the contract snapshot', async () => {
    const manifest = parse(await readFile(MANIFEST, 'utf8')) as Record<string, unknown>;
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(pkg.version);
    expect(() => loadManifest(MANIFEST, { herdrVersion: '0.7.9' })).toThrow(/requires Herdr 0\.8\.0/);
    expect(manifest.build).toEqual([{ command: ['sh', 'build.sh'] }]);
    expect((await stat(join(PLUGIN, 'build.sh'))).isFile()).toBe(true);
  });
});

describe('build.sh', () => {
  async function checkout(version: string): Promise<{ root: string; env: NodeJS.ProcessEnv; log: string }> {
    const root = join(await tempDir('dogsled-plugin-'), "it's a checkout");
    await mkdir(join(root, 'plugins', 'herdr'), { recursive: true });
    await mkdir(join(root, 'dist'), { recursive: true });
    await copyFile(MANIFEST, join(root, 'plugins', 'herdr', 'herdr-plugin.toml'));
    await copyFile(join(PLUGIN, 'build.sh'), join(root, 'plugins', 'herdr', 'build.sh'));
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'dogsled', version }, null, 2));
    await writeFile(
      join(root, 'dist', 'dogsled.cjs'),
      'console.log(JSON.stringify(process.argv.slice(2)));\n',
    );
    const bin = join(root, '..', 'fake-bin');
    const log = join(root, '..', 'npm.log');
    await mkdir(bin, { recursive: true });
    // npm stands in: it records how it was called instead of installing.
    await writeFile(join(bin, 'npm'), `#!/bin/sh\necho "$PWD $*" >> '${log}'\n`);
    await chmod(join(bin, 'npm'), 0o755);
    return { root, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, log };
  }

  it('builds this checkout when it is the manifest version and writes bin/dogsled for it', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    const { root, env, log } = await checkout(pkg.version);
    const built = await run('sh', [join(root, 'plugins', 'herdr', 'build.sh')], { env });
    expect(built.stdout).toContain(`bin/dogsled runs ${join(root, 'dist', 'dogsled.cjs')}`);
    expect(await readFile(log, 'utf8')).toBe(`${root} ci --no-audit --no-fund\n`);
    const wrapped = await run(join(root, 'plugins', 'herdr', 'bin', 'dogsled'), [
      'sidebar',
      '--owner',
      'w1:p1',
    ]);
    expect(JSON.parse(wrapped.stdout)).toEqual(['sidebar', '--owner', 'w1:p1']);
  });

  it('refuses a checkout of another version, leaving no bin/dogsled', async () => {
    const { root, env } = await checkout('9.9.9');
    const failed = await run('sh', [join(root, 'plugins', 'herdr', 'build.sh')], { env }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/checkout is dogsled 9\.9\.9, the manifest names \d+\.\d+\.\d+/);
    await expect(stat(join(root, 'plugins', 'herdr', 'bin', 'dogsled'))).rejects.toThrow();
  });
});
