// A fresh clone's mise configuration is trusted only when mise reports the checkout untrusted
// (`mise trust --show`, whose answer this fake mise gives as mise 2026.9 prints it: `<dir>: trusted`
// or `<dir>: untrusted`, a directory under HOME as `~/…`), and then only the checkout's own files.

import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trustFreshClone } from '../../../service/worktrees/mise-trust.js';
import { tempDir } from '../../helpers/tree.js';

let root: string;
let home: string;
let checkout: string;
let log: string;
let env: NodeJS.ProcessEnv;

/** A `mise` that records its arguments and answers `trust --show` with `answer` (exit `code`). */
async function fakeMise(answer: string, code = 0): Promise<void> {
  const bin = join(root, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(root, 'show.txt'), answer);
  const script = [
    '#!/bin/sh',
    `printf '%s\\n' "$*" >> '${log}'`,
    'if [ "$1 $2" = "trust --show" ]; then',
    `  cat '${join(root, 'show.txt')}'`,
    `  exit ${code}`,
    'fi',
    'exit 0',
    '',
  ].join('\n');
  await writeFile(join(bin, 'mise'), script);
  await chmod(join(bin, 'mise'), 0o755);
}

async function calls(): Promise<string[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

beforeEach(async () => {
  root = await tempDir('dogsled-mise-');
  home = join(root, 'home');
  checkout = join(home, 'src', 'proj');
  log = join(root, 'mise.log');
  await mkdir(join(checkout, '.config', 'mise'), { recursive: true });
  await writeFile(join(checkout, 'mise.toml'), '[env]\nA = "1"\n');
  await writeFile(join(checkout, '.config', 'mise', 'config.toml'), '[env]\nB = "1"\n');
  // A parent's configuration: never the clone's to trust.
  await writeFile(join(home, 'src', 'mise.toml'), '[env]\nC = "1"\n');
  env = { HOME: home, PATH: `${join(root, 'bin')}:/usr/bin:/bin` };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('trustFreshClone', () => {
  it('trusts nothing when mise reports the checkout trusted (a parent untrusted is not its to trust)', async () => {
    await fakeMise(`~/src/proj: trusted\n~/src: untrusted\n`);
    expect(await trustFreshClone(checkout, { env })).toEqual([]);
    expect(await calls()).toEqual(['trust --show']);
  });

  it("trusts each of the checkout's own mise files when mise reports it untrusted (written ~/…)", async () => {
    await fakeMise(`~/src/proj: untrusted\n~/src: untrusted\n`);
    const trusted = await trustFreshClone(checkout, { env });
    const files = [join(checkout, 'mise.toml'), join(checkout, '.config', 'mise', 'config.toml')];
    expect(trusted).toEqual(files);
    expect(await calls()).toEqual(['trust --show', ...files.map((file) => `trust -- ${file}`)]);
  });

  it('knows the checkout by its absolute path as well', async () => {
    await fakeMise(`${checkout}: untrusted\n`);
    expect(await trustFreshClone(checkout, { env })).toHaveLength(2);
  });

  it('trusts nothing when mise cannot say (an older mise without --show exits non-zero)', async () => {
    await fakeMise("error: unexpected argument '--show' found\n", 2);
    expect(await trustFreshClone(checkout, { env })).toEqual([]);
    expect(await calls()).toEqual(['trust --show']);
  });

  it('asks nothing without mise files, and does nothing without mise', async () => {
    await fakeMise(`~/src/proj: untrusted\n`);
    await rm(join(checkout, 'mise.toml'));
    await rm(join(checkout, '.config'), { recursive: true });
    expect(await trustFreshClone(checkout, { env })).toEqual([]);
    expect(await calls()).toEqual([]);
    await writeFile(join(checkout, 'mise.toml'), '[env]\nA = "1"\n');
    expect(await trustFreshClone(checkout, { env: { ...env, PATH: '/usr/bin:/bin' } })).toEqual([]);
  });
});
