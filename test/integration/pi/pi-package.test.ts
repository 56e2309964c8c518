// The Pi package as `pi install` reads it: plugins/pi/package.json and the repository root declare
// extensions and skills that exist after the build, the versions agree (the extension warns when it
// and the binary differ), and the built file is a self-contained ESM module whose default export
// registers with Pi.

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakePi } from '../../fakes/pi-api/fake-pi.js';
import { ROOT } from '../../helpers/cli.js';

const PI_DIR = join(ROOT, 'plugins', 'pi');

async function json(path: string) {
  return JSON.parse(await readFile(path, 'utf8'));
}

describe('the Pi package', () => {
  it('declares a built extension and the shared skill, in both manifests, at the CLI version', async () => {
    const pkg = await json(join(PI_DIR, 'package.json'));
    const root = await json(join(ROOT, 'package.json'));
    expect(pkg.keywords).toContain('pi-package');
    expect(pkg.version).toBe(root.version);
    for (const path of [...pkg.pi.extensions, ...pkg.pi.skills])
      expect(await stat(join(PI_DIR, path))).toBeTruthy();
    for (const path of [...root.pi.extensions, ...root.pi.skills])
      expect(await stat(join(ROOT, path))).toBeTruthy();
    expect(await readFile(join(PI_DIR, 'dist', 'skills', 'dogsled', 'SKILL.md'), 'utf8')).toBe(
      await readFile(join(ROOT, 'plugins', 'dogsled', 'skills', 'dogsled', 'SKILL.md'), 'utf8'),
    );
  });

  it('builds one file that imports only node built-ins and registers its commands and renderer', async () => {
    const file = join(PI_DIR, 'dist', 'index.js');
    const code = await readFile(file, 'utf8');
    const imported = [...code.matchAll(/^import .* from ['"]([^'"]+)['"];?$/gm)].map((m) => m[1]);
    expect(imported.every((spec) => spec?.startsWith('node:'))).toBe(true);
    const fake = new FakePi();
    const factory = (await import(pathToFileURL(file).href)).default;
    factory(fake.api);
    expect([...fake.commands.keys()].sort()).toEqual(['dogsled', 'todos', 'work']);
    expect([...fake.shortcuts.keys()].sort()).toEqual(
      ['alt+w', 'alt+j', 'alt+k', 'alt+]', 'alt+i', 'alt+s', 'alt+c', 'alt+m', 'alt+t'].sort(),
    );
    expect([...fake.renderers.keys()]).toEqual(['dogsled']);
    expect([...fake.handlers.keys()]).toEqual(
      expect.arrayContaining([
        'session_start',
        'session_shutdown',
        'before_agent_start',
        'agent_before_settle',
      ]),
    );
  });
});
