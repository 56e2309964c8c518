// `dogsled host agent|worktree|read|close|send` as a peer runs them for a caller on another host,
// here on the built CLI in a private sandbox: a request that is not one (arguments, not JSON, wrong
// fields, a launch id that names a path elsewhere) is one line, exit 2, with nothing written; a
// launch whose directory is missing, or whose checkout is a FIFO, a plain directory or a file, is
// refused before any task file or record, and gives its reservation back.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let lock: ServiceLock | undefined;

beforeEach(async () => {
  box = await sandbox();
  env = { ...box.env, DOGSLED_TEST: '1' };
});

afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

function agentRequest(overrides: Record<string, unknown> = {}, place: Record<string, unknown> = {}) {
  return {
    item: 'i_abcdef12',
    request: {
      launch: 'l_abcdef12',
      kind: 'claude',
      name: 'child',
      profile: null,
      branch: null,
      base: null,
      cwd: '/caller/src/proj',
      caller_workspace: null,
    },
    task: 'Do the thing.',
    place: { cwd: '/caller/src/proj', home_relative: 'src/proj', checkout: null, ...place },
    owner: 'w1:p1',
    ticket: null,
    reservation: null,
    max_ms: 1e300,
    ...overrides,
  };
}

async function launchesLeft(): Promise<string[]> {
  return readdir(join(box.state, 'launches')).catch(() => []);
}

function oneLine(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
}

describe('host verbs for agents refuse what is not a request', () => {
  it.each([
    [['agent', '--json'], '', /^dogsled: host agent: takes its request on stdin, got "--json"\n$/],
    [['agent'], 'not json', /^dogsled: host agent: the request on stdin is not JSON\n$/],
    [
      ['agent'],
      '{"item":"i_abcdef12"}',
      /^dogsled: host agent: the request on stdin is not an agent launch\n$/,
    ],
    [['worktree'], '[]', /^dogsled: host worktree: the request on stdin is not a worktree request\n$/],
    [['read'], '', /^dogsled: host read: takes one target\n$/],
    [['close', 'w1:p1', 'w1:p2'], '', /^dogsled: host close: takes one pane\n$/],
    [['send', 'child'], '', /^dogsled: host send: takes a target and a kind\n$/],
    [
      ['send', 'child', 'message'],
      '{"text":1}',
      /^dogsled: host send: the request on stdin is not a message\n$/,
    ],
  ])('host %j with %j', async (args, input, pattern) => {
    oneLine(await runCli(['host', ...args], env, { input }), pattern);
    expect(await launchesLeft()).toEqual([]);
  });

  it('refuses a launch id that would name a path outside launches/, writing nothing', async () => {
    const bad = agentRequest();
    bad.request.launch = '../../escaped';
    const result = await runCli(['host', 'agent'], env, { input: JSON.stringify(bad) });
    oneLine(result, /^dogsled: host: launch id "\.\.\/\.\.\/escaped" is not valid\n$/);
    expect(await launchesLeft()).toEqual([]);
  });
});

describe('host agent refuses a place it cannot use before any change', () => {
  async function reserve(): Promise<string> {
    lock = await holdServiceLock(box.state);
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
    const reserved = await runCli(['host', 'reserve', 'w1:p1'], env);
    expect(reserved.code, reserved.stderr).toBe(0);
    return JSON.parse(reserved.stdout).reservation.id;
  }

  async function reservations(): Promise<string[]> {
    const text = await readFile(join(box.state, 'placements.json'), 'utf8');
    return JSON.parse(text).reservations.map((r: { id: string }) => r.id);
  }

  it('a missing directory: no task file, no record, the reservation given back', async () => {
    const id = await reserve();
    expect(await reservations()).toContain(id);
    const input = JSON.stringify(agentRequest({ reservation: id }));
    const result = await runCli(['host', 'agent'], env, { input });
    oneLine(result, /is not a directory on this host\n$/);
    expect(await launchesLeft()).toEqual([]);
    expect(await reservations()).not.toContain(id);
  });

  it.each(['fifo', 'file', 'plain directory'])(
    'a checkout that is a %s is refused and left as it is',
    async (kind) => {
      const top = join(box.home, 'src', 'proj');
      await mkdir(join(box.home, 'src'), { recursive: true });
      if (kind === 'fifo') execFileSync('mkfifo', [top]);
      if (kind === 'file') await writeFile(top, 'not a checkout\n');
      if (kind === 'plain directory') await mkdir(top);
      const before = await stat(top);
      const checkout = { top: '/caller/src/proj', top_home_relative: 'src/proj', origin: '/some/origin.git' };
      const input = JSON.stringify(agentRequest({}, { checkout }));
      const result = await runCli(['host', 'agent'], env, { input, timeoutMs: 30_000 });
      oneLine(result, /src\/proj" on this host is not a checkout of a repository\n$/);
      const after = await stat(top);
      expect({ mode: after.mode, mtime: after.mtimeMs, size: after.size }).toEqual({
        mode: before.mode,
        mtime: before.mtimeMs,
        size: before.size,
      });
      expect(await launchesLeft()).toEqual([]);
    },
  );
});

describe('host agent clones a missing checkout from the caller origin', () => {
  function git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8' });
  }

  /**
   * An origin holding a mise.toml, and a fake `mise` that records its arguments, reports the
   * checkout untrusted to `trust --show` as mise 2026.9 does (`~/src/proj: untrusted`), and fails
   * `trust FILE` with `miseExit`.
   */
  async function setup(miseExit: number): Promise<{ origin: string; log: string; bin: string }> {
    const seed = join(box.root, 'seed');
    await mkdir(seed);
    git(seed, 'init', '-q', '-b', 'main');
    await writeFile(join(seed, 'mise.toml'), '[tools]\n');
    git(seed, 'add', 'mise.toml');
    git(seed, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'first');
    const origin = join(box.root, "it's origin.git");
    git(box.root, 'clone', '-q', '--bare', seed, origin);
    const bin = join(box.root, 'bin');
    await mkdir(bin);
    const log = join(box.root, 'mise.log');
    await writeFile(
      join(bin, 'mise'),
      [
        '#!/bin/sh',
        `for a in "$@"; do printf '[%s]' "$a" >> '${log}'; done`,
        `echo >> '${log}'`,
        'if [ "$1 $2" = "trust --show" ]; then echo "~/src/proj: untrusted"; exit 0; fi',
        "echo 'mise: nope' >&2",
        `exit ${miseExit}`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return { origin, log, bin };
  }

  it('clones into the same path under this home and trusts only its mise file', async () => {
    const { origin, log, bin } = await setup(0);
    const checkout = { top: '/caller/src/proj', top_home_relative: 'src/proj', origin };
    const input = JSON.stringify(agentRequest({}, { checkout }));
    const result = await runCli(['host', 'agent'], { ...env, PATH: `${bin}:${env.PATH}` }, { input });
    // No Herdr here: the launch stops after the checkout, with the clone kept and trusted.
    oneLine(result, /needs Herdr or tmux \(/);
    const top = join(box.home, 'src', 'proj');
    expect(git(top, 'remote', 'get-url', 'origin').trim()).toBe(origin);
    expect(await readFile(log, 'utf8')).toBe(`[trust][--show]\n[trust][--][${join(top, 'mise.toml')}]\n`);
    expect(await launchesLeft()).toEqual([]);
  });

  it('a mise trust that fails is one line naming the file', async () => {
    const { origin, bin } = await setup(3);
    const checkout = { top: '/caller/src/proj', top_home_relative: 'src/proj', origin };
    const input = JSON.stringify(agentRequest({}, { checkout }));
    const result = await runCli(['host', 'agent'], { ...env, PATH: `${bin}:${env.PATH}` }, { input });
    oneLine(result, /mise trust ".*src\/proj\/mise\.toml" exited with code 3: mise: nope\n$/);
    expect(await launchesLeft()).toEqual([]);
  });

  it('a clone that fails names the origin', async () => {
    const checkout = {
      top: '/caller/src/proj',
      top_home_relative: 'src/proj',
      origin: join(box.root, 'absent.git'),
    };
    const result = await runCli(['host', 'agent'], env, {
      input: JSON.stringify(agentRequest({}, { checkout })),
    });
    oneLine(result, /cannot clone .*absent\.git into .*src\/proj: git clone exited 128/);
    expect(await stat(join(box.home, 'src', 'proj')).catch(() => undefined)).toBeUndefined();
  });
});
