// Herdr's saved machines are read with `herdr machine list`, a process start: status, place and run
// share one read per 10 s on this host (machine-list.json, service/hosts/machine-list.ts), keyed
// by the herdr binary and the HOME and XDG_CONFIG_HOME it runs with. A change through `dogsled
// machine` is seen at once; `machine list` always asks Herdr. A damaged entry (garbage, a
// directory, a FIFO, a machine that does not check) is never trusted and never hangs a caller.
// The fake Herdr's `herdr` sits behind a wrapper on PATH that counts its calls.

import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

const FAKE_HERDR = join(ROOT, 'test', 'fakes', 'herdr', 'bin', 'herdr');

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let calls: string;

/** A Herdr config dir with one saved machine labelled `label`. */
async function herdrConfig(dir: string, label: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  execFileSync(FAKE_HERDR, ['machine', 'add', 'me@peer.invalid', '--label', label], {
    env: { ...env, XDG_CONFIG_HOME: dir },
    stdio: 'ignore',
  });
}

beforeEach(async () => {
  box = await sandbox();
  const bin = join(box.root, 'bin');
  calls = join(box.root, 'herdr-calls');
  await mkdir(bin);
  await writeFile(join(bin, 'herdr'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${FAKE_HERDR}' "$@"\n`);
  await chmod(join(bin, 'herdr'), 0o755);
  env = { ...box.env, PATH: `${bin}:${box.env.PATH}`, XDG_CONFIG_HOME: join(box.root, 'xdg') };
  await herdrConfig(join(box.root, 'xdg'), 'peer1');
});

afterEach(async () => {
  await box.cleanup();
});

async function machineLists(): Promise<number> {
  const text = await readFile(calls, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line.startsWith('machine list')).length;
}

async function statusLine(extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const result = await runCli(['status', '--line'], { ...env, ...extra });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

describe("Herdr's machine list", () => {
  it('is read once for several callers within 10 s', async () => {
    for (let i = 0; i < 3; i++) expect(await statusLine()).toContain('peer1');
    expect(await machineLists()).toBe(1);
  });

  it('is read again once the entry is 10 s old, or from the future after a clock step back', async () => {
    const now = Date.now();
    const at = (ms: number) => ({ DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(ms) });
    await statusLine(at(now));
    await statusLine(at(now + 9_999));
    expect(await machineLists()).toBe(1);
    await statusLine(at(now + 10_000));
    expect(await machineLists()).toBe(2);
    await statusLine(at(now - 60_000));
    expect(await machineLists()).toBe(3);
  });

  it('is read for each Herdr config: another XDG_CONFIG_HOME or HOME has its own list', async () => {
    expect(await statusLine()).toContain('peer1');
    const other = join(box.root, 'xdg-other');
    await herdrConfig(other, 'peer2');
    expect(await statusLine({ XDG_CONFIG_HOME: other })).toContain('peer2');
    expect(await statusLine({ HOME: join(box.root, 'elsewhere') })).toContain('peer1');
    expect(await machineLists()).toBe(3);
  });

  it('shows a change made through dogsled machine at once, and machine list always asks Herdr', async () => {
    expect(await statusLine()).toContain('peer1');
    const renamed = await runCli(['machine', 'rename', 'm1', 'renamed'], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(await statusLine()).toContain('renamed');
    const before = await machineLists();
    const listed = await runCli(['machine', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).hosts[0].label).toBe('renamed');
    expect(await machineLists()).toBe(before + 1);
  });

  it.each([
    ['garbage', async (file: string) => writeFile(file, 'not json {')],
    ['a directory', async (file: string) => mkdir(file)],
    ['a FIFO', async (file: string) => execFileSync('mkfifo', [file])],
    [
      'an entry whose machine does not check',
      async (file: string) => {
        const entry = JSON.parse(await readFile(file, 'utf8'));
        entry.machines = [{ id: 7, label: '\u001b[2J' }];
        await writeFile(file, JSON.stringify(entry));
      },
    ],
  ])('asks Herdr when the shared entry is %s', async (_what, damage) => {
    const file = join(box.state, 'machine-list.json');
    if (_what.startsWith('an entry')) await statusLine();
    else await mkdir(box.state, { recursive: true });
    await damage(file);
    const before = await machineLists();
    const result = await runCli(['status', '--line'], env, { timeoutMs: 15_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('peer1');
    expect(result.stdout).not.toContain('\u001b');
    expect(await machineLists()).toBe(before + 1);
  });
});
