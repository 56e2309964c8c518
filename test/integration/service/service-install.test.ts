// `dogsled service install|status|uninstall` against a stand-in systemctl that records its calls
// (this machine has no systemd user manager): the unit it writes, checked by systemd's own parser
// (`systemd-analyze verify --user`) where that is installed, and run as systemd would run it, which
// starts `serve`; refusals before anything is written; status and uninstall reading it back. A real
// systemd user manager is used only with DOGSLED_REAL_SYSTEMD=1 (it would replace your own unit).

import { execFile, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchdCommand, launchdPlist, systemdCommand } from '../../../service/core/install/service-unit.js';
import { CLI, exited, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

const run = promisify(execFile);

/** systemctl as the test needs it: records each call, answers `show`, or is down. */
const FAKE_SYSTEMCTL = `#!/bin/sh
echo "$*" >> "$FAKE_SYSTEMCTL_LOG"
case "$*" in
  "--user show-environment")
    if [ -n "$FAKE_SYSTEMCTL_DOWN" ]; then echo 'Failed to connect to bus: No medium found' >&2; exit 1; fi ;;
  "--user show dogsled.service"*) printf 'MainPID=4242\\nLoadState=loaded\\nActiveState=active\\nUnitFileState=enabled\\n' ;;
esac
exit 0
`;

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let log: string;
let unit: string;

beforeEach(async () => {
  // A state dir a unit has to escape: a space, a specifier (%), a variable ($) and a quote.
  box = await sandbox();
  const state = join(box.root, 'state 100%$"x');
  const bin = join(box.root, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'systemctl'), FAKE_SYSTEMCTL);
  await chmod(join(bin, 'systemctl'), 0o755);
  log = join(box.root, 'systemctl.log');
  env = { ...box.env, DOGSLED_STATE: state, PATH: `${bin}:${box.env.PATH}`, FAKE_SYSTEMCTL_LOG: log };
  unit = join(box.home, '.config', 'systemd', 'user', 'dogsled.service');
});
afterEach(() => box.cleanup());

const calls = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('dogsled service install', () => {
  it('writes a unit that runs this node and this dogsled with the shell PATH, then enables and restarts it', async () => {
    const done = await runCli(['service', 'install'], env);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`wrote ${unit} (systemd), with PATH, DOGSLED_STATE of this shell`);
    expect(done.stdout).toMatch(/state {5}running \(pid 4242\), enabled/);
    const text = await readFile(unit, 'utf8');
    expect(systemdCommand(text)).toEqual([realpathSync(process.execPath), realpathSync(CLI), 'serve']);
    expect(text).toContain(`Environment="PATH=${env.PATH}"`);
    expect(text).toContain('Environment="DOGSLED_STATE=');
    expect((await stat(unit)).mode & 0o777).toBe(0o644);
    expect(await calls()).toEqual([
      '--user show-environment',
      '--user daemon-reload',
      '--user enable dogsled.service',
      '--user restart dogsled.service',
      '--user show dogsled.service --property=LoadState,ActiveState,UnitFileState,MainPID',
    ]);
    // The state dir exists (0700) before the service first appends its log there.
    expect((await stat(env.DOGSLED_STATE!)).mode & 0o777).toBe(0o700);
  });

  it('writes a unit that starts serve when run the way systemd runs it', async () => {
    expect((await runCli(['service', 'install'], env)).code).toBe(0);
    const text = await readFile(unit, 'utf8');
    const [program, ...args] = systemdCommand(text)!;
    const unitEnv = Object.fromEntries(
      [...text.matchAll(/^Environment="([A-Z_]+)=(.*)"$/gm)].map((m) => [
        m[1],
        m[2]!.replaceAll('%%', '%').replace(/\\(.)/g, '$1'),
      ]),
    );
    expect(unitEnv.DOGSLED_STATE).toBe(env.DOGSLED_STATE);
    // systemd gives a user service only HOME and what the unit sets.
    const child = spawn(program!, args, {
      env: { HOME: box.home, ...unitEnv },
      cwd: box.home,
      stdio: 'ignore',
    });
    try {
      await waitFor(
        'host.json from the unit',
        async () => (existsSync(join(env.DOGSLED_STATE!, 'host.json')) ? true : undefined),
        { timeoutMs: 20_000 },
      );
      const status = await runCli(['status', '--json'], env);
      expect(JSON.parse(status.stdout).hosts[0].service).toBe('up');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it("passes systemd's own check of the unit (systemd-analyze verify --user)", async (ctx) => {
    const analyze = await run('systemd-analyze', ['--version']).catch(() => undefined);
    if (!analyze) {
      console.log('skipped: systemd-analyze is not installed, so systemd cannot check the unit here');
      ctx.skip();
    }
    expect((await runCli(['service', 'install'], env)).code).toBe(0);
    const runtime = join(box.root, 'runtime');
    await mkdir(runtime, { mode: 0o700 });
    const checked = await run('systemd-analyze', ['verify', '--user', unit], {
      env: { ...env, XDG_RUNTIME_DIR: runtime },
    }).catch((error) => error);
    expect(checked.stderr).toBe('');
    expect(checked.code ?? 0).toBe(0);
  });

  it('refuses in one line, writing nothing, when the systemd user manager does not answer', async () => {
    const failed = await runCli(['service', 'install'], { ...env, FAKE_SYSTEMCTL_DOWN: '1' });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(
      "dogsled: service: systemd's user manager does not answer (systemctl --user show-environment exited with 1: Failed to connect to bus: No medium found); nothing written\n",
    );
    expect(existsSync(join(box.home, '.config', 'systemd'))).toBe(false);
    expect(existsSync(env.DOGSLED_STATE!)).toBe(false);
  });

  it('refuses a PATH no unit can carry, or no systemctl at all, writing nothing', async () => {
    const newline = await runCli(['service', 'install'], { ...env, PATH: `${env.PATH}\n[Service]` });
    expect(newline.code).toBe(2);
    expect(newline.stderr).toBe(
      'dogsled: service: cannot write a unit for this service: PATH holds a control character\n',
    );
    const none = await runCli(['service', 'install'], { ...env, PATH: join(box.root, 'empty') });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^dogsled: service: systemd's user manager does not answer \(systemctl is not on PATH\)/,
    );
    expect(existsSync(unit)).toBe(false);
    expect(await calls()).toEqual([]);
  });

  it('says so in one line when the unit path is a directory', async () => {
    await mkdir(unit, { recursive: true });
    const failed = await runCli(['service', 'install'], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(
      `dogsled: service: cannot write ${unit}: illegal operation on a directory (EISDIR)\n`,
    );
    expect((await stat(unit)).isDirectory()).toBe(true);
    // No temp file is left beside it, and no manager call made.
    expect(await readdir(join(unit, '..'))).toEqual(['dogsled.service']);
    expect(await calls()).toEqual(['--user show-environment']);
  });
});

describe('dogsled service status and uninstall', () => {
  it('reads the unit back, then removes it after stopping and disabling it', async () => {
    const before = JSON.parse((await runCli(['service', 'status', '--json'], env)).stdout);
    expect(before).toMatchObject({ manager: 'systemd', file: unit, installed: false, command: null });
    await runCli(['service', 'install'], env);
    const status = JSON.parse((await runCli(['service', '--json'], env)).stdout);
    expect(status).toMatchObject({
      installed: true,
      command: [realpathSync(process.execPath), realpathSync(CLI), 'serve'],
      enabled: true,
      active: true,
      pid: 4242,
      problem: null,
    });
    await writeFile(log, '');
    const removed = await runCli(['service', 'uninstall'], env);
    expect(removed.stdout).toBe(`removed ${unit}\n`);
    expect(existsSync(unit)).toBe(false);
    expect(await calls()).toEqual(['--user disable --now dogsled.service', '--user daemon-reload']);
    expect((await runCli(['service', 'uninstall'], env)).stdout).toBe(`not installed: ${unit}\n`);
  });

  it('reports what it could not ask the manager, with what the unit runs', async () => {
    await runCli(['service', 'install'], env);
    const status = await runCli(['service', 'status'], { ...env, PATH: join(box.root, 'empty') });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`runs      ${realpathSync(process.execPath)} ${realpathSync(CLI)} serve`);
    expect(status.stdout).toContain('problem   systemctl is not on PATH');
  });
});

describe('the launchd agent', () => {
  it("is a property list macOS reads (python's plistlib), with the command and PATH whole", async (ctx) => {
    const python = await run('python3', ['--version']).catch(() => undefined);
    if (!python) {
      console.log('skipped: python3 is not installed to read the property list');
      ctx.skip();
    }
    const spec = {
      argv: ['/opt/my node/node', '/srv/a&b <c>/dist/dogsled.cjs', 'serve'],
      env: [['PATH', "/x y/bin:/it's"]] as Array<[string, string]>,
      log: '/var/log/dog&sled.log',
      home: '/Users/a"b',
    };
    const file = join(box.root, 'dev.dogsled.plist');
    await writeFile(file, launchdPlist(spec));
    const read = await run('python3', [
      '-c',
      'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))',
      file,
    ]);
    const plist = JSON.parse(read.stdout);
    expect(plist.ProgramArguments).toEqual(spec.argv);
    expect(plist.EnvironmentVariables).toEqual({ HOME: spec.home, PATH: spec.env[0]![1] });
    expect(plist.StandardOutPath).toBe(spec.log);
    expect(launchdCommand(launchdPlist(spec))).toEqual(spec.argv);
  });
});

describe('a real systemd user manager', () => {
  it('runs the unit it installed', async (ctx) => {
    const bus = await run('systemctl', ['--user', 'show-environment']).catch((error) => error);
    if (bus instanceof Error) {
      console.log(
        `skipped: no systemd user manager here (${String((bus as { stderr?: string }).stderr).trim()})`,
      );
      ctx.skip();
    }
    if (process.env.DOGSLED_REAL_SYSTEMD !== '1') {
      console.log(
        'skipped: set DOGSLED_REAL_SYSTEMD=1 to install into your own user manager (replaces dogsled.service)',
      );
      ctx.skip();
    }
    const real = { ...env, PATH: box.env.PATH, HOME: process.env.HOME };
    try {
      expect((await runCli(['service', 'install'], real)).code).toBe(0);
      await waitFor(
        'host.json from systemd',
        async () => (existsSync(join(env.DOGSLED_STATE!, 'host.json')) ? true : undefined),
        { timeoutMs: 30_000 },
      );
    } finally {
      await runCli(['service', 'uninstall'], real);
    }
  });
});
