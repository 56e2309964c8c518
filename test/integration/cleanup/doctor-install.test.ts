// doctor's install section on a real host setup: the service unit (a stand-in systemctl, as this
// machine has no systemd user manager) and the serve holding the lock, the dogsled on PATH against
// the one the unit runs, the warm supervisor answering (or frozen), the Herdr plugin through the
// fake Herdr, and harness records that cannot be read. Each finding names the command that fixes it.
// (Claude Code and Codex themselves: harness-plugins.test.ts, with the real clients.)

import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReportSchema } from '../../../service/cleanup/doctor-report.js';
import type { InstallFinding } from '../../../service/core/install/install-findings.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { CLI, exited, ROOT, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { theWarmOne } from '../../helpers/warm-supervisor.js';

const VERSION = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version as string;
const FAKE_SYSTEMCTL = `#!/bin/sh
echo "$*" >> "$FAKE_SYSTEMCTL_LOG"
case "$*" in
  "--user show dogsled.service"*) printf 'MainPID=4242\\nActiveState=%s\\nUnitFileState=enabled\\n' "\${FAKE_ACTIVE:-active}" ;;
esac
exit 0
`;

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let bin: string;

async function install(): Promise<Map<string, InstallFinding>> {
  const done = await runCli(['doctor', '--json'], env, { timeoutMs: 60_000 });
  expect(done.code, done.stderr).toBe(0);
  const report = DoctorReportSchema.parse(JSON.parse(done.stdout));
  return new Map((report.install ?? []).map((finding) => [finding.check, finding]));
}

beforeAll(async () => {
  box = await sandbox();
  bin = join(box.root, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'systemctl'), FAKE_SYSTEMCTL);
  await chmod(join(bin, 'systemctl'), 0o755);
  // Only what this test puts on PATH: no claude, codex or herdr of the machine's.
  env = {
    ...box.env,
    PATH: `${bin}:/usr/bin:/bin`,
    FAKE_SYSTEMCTL_LOG: join(box.root, 'systemctl.log'),
  };
});
afterAll(() => box?.cleanup());

describe('doctor, install section', () => {
  it('on a bare host: no service, no dogsled on PATH, no harness, no Herdr, each with its fix', async () => {
    const found = await install();
    expect([...found.keys()]).toEqual(['service', 'path', 'claude', 'codex', 'herdr', 'warm']);
    expect(found.get('service')).toEqual({
      check: 'service',
      state: 'fix',
      detail: 'no serve runs, and no systemd unit starts one',
      fix: 'dogsled service install',
    });
    // This dogsled runs from a checkout: npm link puts it on PATH (see install-npm.test.ts for a prefix).
    expect(found.get('path')).toMatchObject({ state: 'fix', fix: `cd ${ROOT} && npm link` });
    expect(found.get('claude')).toMatchObject({ state: 'skip', detail: 'claude is not on PATH' });
    expect(found.get('codex')).toMatchObject({ state: 'skip', detail: 'codex is not on PATH' });
    expect(found.get('herdr')).toMatchObject({ state: 'skip' });
    expect(found.get('warm')).toMatchObject({ state: 'skip' });
    const human = await runCli(['doctor'], env, { timeoutMs: 60_000 });
    expect(human.stdout).toMatch(
      /^install\n {2}fix {5}service {6}no serve runs, and no systemd unit starts one\n {23}run: dogsled service install\n/,
    );
  });

  it('with serve under the unit: ok, the PATH dogsled is the one it runs, the warm supervisor answers; a frozen one does not', async () => {
    // `dogsled` on PATH as npm links it: a symlink to the entry.
    await symlink(CLI, join(bin, 'dogsled'));
    expect((await runCli(['service', 'install'], env)).code).toBe(0);
    const serve = startCli(['serve'], env);
    try {
      const warm = await theWarmOne(box.state);
      let found = await install();
      expect(found.get('service')).toMatchObject({
        state: 'ok',
        detail: `serve runs under systemd (pid ${serve.pid})`,
      });
      expect(found.get('path')).toMatchObject({ state: 'ok', fix: null });
      expect(found.get('path')?.detail).toMatch(
        /^the service runs the dogsled on PATH \(.*dist\/dogsled\.cjs\)$/,
      );
      expect(found.get('warm')).toMatchObject({ state: 'ok' });

      // A supervisor that stopped answering (frozen): the fix is the service's restart.
      process.kill(warm, 'SIGSTOP');
      try {
        found = await install();
        expect(found.get('warm')).toMatchObject({ state: 'fix', fix: 'dogsled service install' });
      } finally {
        process.kill(warm, 'SIGCONT');
      }

      // Another dogsled first on PATH than the one the unit runs.
      const other = join(box.root, 'other', 'dogsled');
      await mkdir(join(other, '..'));
      await writeFile(other, '#!/bin/sh\nexit 0\n');
      await chmod(other, 0o755);
      await rm(join(bin, 'dogsled'));
      await symlink(other, join(bin, 'dogsled'));
      found = await install();
      expect(found.get('path')).toMatchObject({ state: 'fix', fix: 'dogsled service install' });
      expect(found.get('path')?.detail).toMatch(
        /^the service runs .*dist\/dogsled\.cjs, but dogsled on PATH is .*\/other\/dogsled$/,
      );

      // The unit stopped by its manager while a serve of another origin holds the lock.
      found = await runWith({ FAKE_ACTIVE: 'inactive' });
      expect(found.get('service')).toMatchObject({
        state: 'fix',
        detail: 'the systemd unit is installed but not running',
        fix: 'dogsled service install',
      });
    } finally {
      serve.kill('SIGTERM');
      await exited(serve);
    }
    const found = await install();
    expect(found.get('service')).toMatchObject({
      state: 'fix',
      detail: 'the systemd unit runs, but no serve holds the service lock (see serve.log)',
    });
    expect(found.get('warm')).toMatchObject({ state: 'skip' });
  });

  it("says which records of Claude Code and Codex cannot be read, escape-free, with each one's fix", async () => {
    await mkdir(join(box.home, '.claude', 'plugins', 'installed_plugins.json'), { recursive: true });
    await mkdir(join(box.home, '.codex'), { recursive: true });
    await writeFile(
      join(box.home, '.codex', 'config.toml'),
      '[plugins."dogsled@dogsled"\nenabled = \x1b[31mtrue\n',
    );
    const found = await install();
    expect(found.get('claude')).toMatchObject({ state: 'fix' });
    expect(found.get('claude')?.detail).toMatch(
      /^Claude Code's plugin records: .*\/\.claude\/plugins\/installed_plugins\.json: it is a directory \(EISDIR\)$/,
    );
    expect(found.get('codex')?.detail).toMatch(
      /^Codex's config: .*\/\.codex\/config\.toml: Invalid TOML document: [^\n]*$/,
    );
    expect(found.get('codex')).toMatchObject({ state: 'fix' });
    expect(found.get('codex')?.fix).toBe(
      `codex plugin marketplace add oisin-ee/dogsled --ref v${VERSION} && codex plugin add dogsled@dogsled`,
    );
    const human = await runCli(['doctor'], env, { timeoutMs: 60_000 });
    expect(human.stdout.replace(/\n +/g, ' ')).toMatch(
      /fix +Codex +Codex's config: .*config\.toml: Invalid TOML/,
    );
    expect(human.stdout).not.toContain('\x1b');
    await rm(join(box.home, '.claude'), { recursive: true });
    await rm(join(box.home, '.codex'), { recursive: true });
  });

  it('asks Herdr for its plugin: missing, then linked at this version', async () => {
    const herdr: FakeHerdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
    try {
      const withHerdr = { ...herdr.env, ...env, PATH: `${herdr.binDir}:${env.PATH}` };
      let found = await runWith(withHerdr);
      expect(found.get('herdr')).toEqual({
        check: 'herdr',
        state: 'fix',
        detail: 'the dogsled plugin is not installed in Herdr',
        fix: `herdr plugin install oisin-ee/dogsled --ref v${VERSION} --yes`,
      });
      const link = await herdr.call('plugin.link', { path: ROOT });
      expect(link.result?.type).toBe('plugin_linked');
      found = await runWith(withHerdr);
      expect(found.get('herdr')).toMatchObject({
        state: 'ok',
        detail: `dogsled ${VERSION} installed in Herdr`,
      });
    } finally {
      await herdr.stop();
    }
  });
});

async function runWith(extra: NodeJS.ProcessEnv): Promise<Map<string, InstallFinding>> {
  const saved = env;
  env = { ...env, ...extra };
  try {
    return await install();
  } finally {
    env = saved;
  }
}
