// The fake `herdr` shim answers `machine list --json` without Node when there is nothing to list
// (test/fakes/herdr/bin/herdr): every placement asks it. That answer, and the cases it leaves to
// the Node shim, must be exactly what the Node shim alone gives, in every environment it reads.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startFakeHerdr } from '../../fakes/herdr/harness.js';
import { ROOT } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tree.js';

const BIN = join(ROOT, 'test', 'fakes', 'herdr', 'bin', 'herdr');
const NODE_SHIM = join(ROOT, 'test', 'fakes', 'herdr', 'shim', 'cli.mjs');

let dir: string;
let withMachines: string;
let withDirectory: string;
let empty: string;

beforeAll(async () => {
  dir = await tempDir('dogsled-machine-list-');
  empty = join(dir, 'empty');
  withMachines = join(dir, 'saved');
  withDirectory = join(dir, 'odd');
  await mkdir(join(empty, 'herdr'), { recursive: true });
  await mkdir(join(withMachines, 'herdr'), { recursive: true });
  await writeFile(
    join(withMachines, 'herdr', 'machines.json'),
    JSON.stringify({
      version: 1,
      next_id: 2,
      machines: [{ id: 'm1', label: 'box', target: 'me@box', enabled: true }],
    }),
  );
  await mkdir(join(withDirectory, 'herdr', 'machines.json'), { recursive: true });
});

/** The shim's answer and the Node shim's, for `args` in `env` (nothing else of this process's). */
function both(args: string[], env: Record<string, string | undefined>) {
  // No server: a version the env does not name would be asked of one, and none answers.
  const base = { PATH: process.env.PATH ?? '', HERDR_SOCKET_PATH: join(dir, 'absent.sock'), ...env };
  const answer = (command: string, argv: string[]) => {
    const run = spawnSync(command, argv, { env: base, cwd: dir, encoding: 'utf8' });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  return { shim: answer(BIN, args), node: answer(process.execPath, [NODE_SHIM, ...args]) };
}

describe('herdr machine list --json', () => {
  it.each([
    ['no saved machines', { FAKE_HERDR_VERSION: '0.9.5' }, 'empty'],
    ['a v-prefixed version', { FAKE_HERDR_VERSION: 'v0.9' }, 'empty'],
    ['Herdr 1.0', { FAKE_HERDR_VERSION: '1.0' }, 'empty'],
    ['Herdr 0.8, which has no machine verbs', { FAKE_HERDR_VERSION: '0.8.0' }, 'empty'],
    ['a bare 0 version', { FAKE_HERDR_VERSION: '0' }, 'empty'],
    ['a version it does not read', { FAKE_HERDR_VERSION: ' 0.9 ' }, 'empty'],
    ['no version named, and no server to ask', {}, 'empty'],
    ['saved machines', { FAKE_HERDR_VERSION: '0.9.5' }, 'saved'],
    ['a machines.json that is a directory', { FAKE_HERDR_VERSION: '0.9.5' }, 'odd'],
    ['the config dir from HOME', { FAKE_HERDR_VERSION: '0.9.5', HOME: 'home' }, 'HOME'],
  ] as const)('answers as the Node shim does with %s', (_what, env, config) => {
    const where =
      config === 'HOME' ? { HOME: join(withMachines, '..', 'home') } : { XDG_CONFIG_HOME: join(dir, config) };
    const { shim, node } = both(['machine', 'list', '--json'], { ...env, ...where });
    expect(shim).toEqual(node);
    expect(shim.code === 0 || shim.code === 2).toBe(true);
  });

  it('finds saved machines under HOME/.config when XDG_CONFIG_HOME is unset or empty', async () => {
    const home = join(dir, 'a home');
    await mkdir(join(home, '.config', 'herdr'), { recursive: true });
    await writeFile(
      join(home, '.config', 'herdr', 'machines.json'),
      JSON.stringify({ machines: [{ id: 'm2', label: 'far', target: 'me@far', enabled: false }] }),
    );
    for (const xdg of [{}, { XDG_CONFIG_HOME: '' }]) {
      const { shim, node } = both(['machine', 'list', '--json'], {
        FAKE_HERDR_VERSION: '0.9.5',
        HOME: home,
        ...xdg,
      });
      expect(shim).toEqual(node);
      expect(JSON.parse(shim.stdout).machines).toHaveLength(1);
    }
  });

  it('answers without starting Node when there is nothing to list', () => {
    const run = spawnSync(BIN, ['machine', 'list', '--json'], {
      env: { PATH: join(dir, 'no node here'), FAKE_HERDR_VERSION: '0.9.5', XDG_CONFIG_HOME: empty },
      encoding: 'utf8',
    });
    expect({ code: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 0,
      stdout: '{"machines":[]}\n',
      stderr: '',
    });
  });

  it.each(['0.9.5', '0.8.0'])(
    "takes a %s server's version from beside its socket as the Node shim takes it from a ping",
    async (version) => {
      const herdr = await startFakeHerdr({ dir: join(dir, `server-${version}`), version });
      try {
        const env = { HERDR_SOCKET_PATH: herdr.socketPath, XDG_CONFIG_HOME: empty };
        const { shim, node } = both(['machine', 'list', '--json'], env);
        expect(shim).toEqual(node);
        expect(shim.code).toBe(version === '0.8.0' ? 2 : 0);
      } finally {
        await herdr.stop();
      }
      // Stopped: no answer to a ping, and no version file left to read instead.
      const { shim, node } = both(['machine', 'list', '--json'], {
        HERDR_SOCKET_PATH: herdr.socketPath,
        XDG_CONFIG_HOME: empty,
      });
      expect(shim).toEqual(node);
    },
  );

  it('leaves every other command to the Node shim', () => {
    for (const args of [['machine', 'list'], ['--version'], ['machine', 'list', '--json', '--x']]) {
      const { shim, node } = both(args, { FAKE_HERDR_VERSION: '0.9.5', XDG_CONFIG_HOME: empty });
      expect(shim).toEqual(node);
    }
  });
});
