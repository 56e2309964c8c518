// Pi profiles read from real directories: the examples the repository ships, every way a profile can
// be broken (each with its reason, none of them able to hang the reader), and `dogsled profiles`.

import { execFileSync } from 'node:child_process';
import { cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listProfiles, loadProfile, profilesDir } from '../../../service/agents/profiles.js';
import { ProfilesReportSchema } from '../../../service/agents/profiles-report.js';
import { ROOT, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

let box: Sandbox;
let root: string;

beforeAll(async () => {
  box = await sandbox();
});
afterAll(async () => {
  await box.cleanup();
});
beforeEach(async () => {
  root = profilesDir(box.home);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
});

async function profile(name: string, json: unknown, files: Record<string, string> = {}): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  const text = typeof json === 'string' ? json : JSON.stringify(json);
  await writeFile(join(root, name, 'profile.json'), text);
  for (const [file, content] of Object.entries(files)) {
    await mkdir(join(root, name, file, '..'), { recursive: true });
    await writeFile(join(root, name, file), content);
  }
}

async function brokenReason(name: string): Promise<string | null> {
  const entry = (await listProfiles(root)).find((candidate) => candidate.name === name);
  if (!entry) throw new Error(`profile ${name} not listed`);
  return entry.broken;
}

describe('the example profiles', () => {
  it('load as they ship: general and reviewer, with _shared not a profile', async () => {
    await cp(join(ROOT, 'profiles'), root, { recursive: true });
    const entries = await listProfiles(root);
    expect(entries.map((entry) => [entry.name, entry.broken])).toEqual([
      ['general', null],
      ['reviewer', null],
    ]);
    const general = await loadProfile(root, 'general');
    expect(general).toMatchObject({ role: 'writer', thinking: 'medium', pi_args: [] });
    expect(general.prompts).toEqual([
      join(root, '_shared', 'house-rules.md'),
      join(root, 'general', 'prompt.md'),
    ]);
    expect((await loadProfile(root, 'reviewer')).role).toBe('reader');
  });
});

describe('a profile', () => {
  it('ignores unknown keys and takes null as absent', async () => {
    await profile('shep', { model: 'alias/sol', shepherdr: { anything: 1 }, thinking: null, prompt: null });
    expect(await loadProfile(root, 'shep')).toMatchObject({
      model: 'alias/sol',
      thinking: null,
      prompts: [],
      role: null,
      pi_args: [],
    });
  });

  it('takes prompt as one file or a list, each relative to its directory, shared ones included', async () => {
    await mkdir(join(root, '_shared'), { recursive: true });
    await writeFile(join(root, '_shared', 'lead.md'), 'lead');
    await profile('one', { prompt: 'prompt.md' }, { 'prompt.md': 'p' });
    await profile('two', { prompt: ['../_shared/lead.md', 'sub/prompt.md'] }, { 'sub/prompt.md': 'p' });
    expect((await loadProfile(root, 'one')).prompts).toEqual([join(root, 'one', 'prompt.md')]);
    expect((await loadProfile(root, 'two')).prompts).toEqual([
      join(root, '_shared', 'lead.md'),
      join(root, 'two', 'sub', 'prompt.md'),
    ]);
  });

  it.each([
    ['not JSON', '{"model": ', /^profile\.json is not JSON \(.+\)$/],
    ['a JSON array', '[1, 2]', /^profile\.json must hold a JSON object$/],
    ['a number for model', { model: 3 }, /^model must be a non-empty string$/],
    ['an empty model', { model: '' }, /^model must be a non-empty string$/],
    [
      'an unknown thinking level',
      { thinking: 'hgih' },
      /^thinking must be one of off, minimal, low, medium, high, xhigh$/,
    ],
    ['an unknown role', { role: 'admin' }, /^role must be reader or writer$/],
    ['a number for prompt', { prompt: 5 }, /^prompt must be a file name or a list of file names/],
    ['pi_args as a string', { pi_args: '--no-skills' }, /^pi_args must be a list of strings$/],
    ['a missing prompt file', { prompt: ['gone.md'] }, /^prompt file "gone\.md" is missing$/],
    [
      'an absolute prompt path',
      { prompt: '/etc/passwd' },
      /^prompt "\/etc\/passwd" must be relative to the profile directory$/,
    ],
    ['a prompt outside the profiles directory', { prompt: '../../../../.ssh/id_ed25519' }, /is outside /],
    [
      'an escape sequence in pi_args',
      { pi_args: ['--ok', 'x\u001b[2J'] },
      /^pi_args\[1\] contains a control character$/,
    ],
    ['a newline in model', { model: 'a\nb' }, /^model contains a control character$/],
  ])('with %s is broken, with its reason', async (_what, json, reason) => {
    await profile('bad', json);
    expect(await brokenReason('bad')).toMatch(reason);
    await expect(loadProfile(root, 'bad')).rejects.toThrow(/^profile bad is broken: /);
  });

  it('is broken when profile.json or a prompt is a directory, a FIFO or too large, and never hangs', async () => {
    await mkdir(join(root, 'dirfile', 'profile.json'), { recursive: true });
    await mkdir(join(root, 'fifo'), { recursive: true });
    execFileSync('mkfifo', [join(root, 'fifo', 'profile.json')]);
    await profile('fifoprompt', { prompt: 'p.md' });
    execFileSync('mkfifo', [join(root, 'fifoprompt', 'p.md')]);
    await profile('dirprompt', { prompt: 'p.md' });
    await mkdir(join(root, 'dirprompt', 'p.md'));
    await profile('huge', `{"description": "${'x'.repeat(70_000)}"}`);
    const reasons = Object.fromEntries((await listProfiles(root)).map((entry) => [entry.name, entry.broken]));
    expect(reasons).toEqual({
      dirfile: 'profile.json is a directory',
      dirprompt: 'prompt file "p.md" is a directory',
      fifo: 'profile.json is not a regular file',
      fifoprompt: 'prompt file "p.md" is not a regular file',
      huge: 'profile.json is larger than 65536 bytes',
    });
  });

  it('is not a profile without profile.json; files and dangling links beside profiles are skipped', async () => {
    await mkdir(join(root, '_shared'), { recursive: true });
    await writeFile(join(root, 'README.md'), 'notes');
    await symlink(join(root, 'nowhere'), join(root, 'dangling'));
    await profile('real', {});
    expect((await listProfiles(root)).map((entry) => entry.name)).toEqual(['real']);
  });

  it('named for a launch must exist, and its name cannot reach outside the profiles directory', async () => {
    await profile('general', {});
    await mkdir(join(root, '_shared'), { recursive: true });
    await expect(loadProfile(root, 'nope')).rejects.toThrow(
      `unknown profile nope: no ${join(root, 'nope', 'profile.json')} (profiles: general)`,
    );
    await expect(loadProfile(root, '_shared')).rejects.toThrow(/^unknown profile _shared/);
    for (const name of ['..', '.', '../general', 'a/b', '', 'x\u001b[31m']) {
      await expect(loadProfile(root, name)).rejects.toThrow(/: not a profile name$/);
    }
  });

  it('directory that is missing lists nothing; one that is a file is an error', async () => {
    await rm(root, { recursive: true, force: true });
    expect(await listProfiles(root)).toEqual([]);
    await writeFile(root, 'not a directory');
    await expect(listProfiles(root)).rejects.toThrow(`profiles: ${root} is not a directory`);
    await rm(root);
  });
});

describe('dogsled profiles', () => {
  it('--json prints {dir, profiles} with broken ones and their reasons', async () => {
    await cp(join(ROOT, 'profiles'), root, { recursive: true });
    await profile('old', { prompt: 'gone.md' });
    const result = await runCli(['profiles', '--json'], box.env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const report = ProfilesReportSchema.parse(JSON.parse(result.stdout));
    expect(report.dir).toBe(root);
    expect(report.profiles.map((row) => [row.name, row.broken])).toEqual([
      ['general', null],
      ['old', 'prompt file "gone.md" is missing'],
      ['reviewer', null],
    ]);
    expect(report.profiles[0]).toMatchObject({
      path: join(root, 'general'),
      model: 'anthropic/claude-sonnet-4-5',
      thinking: 'medium',
      role: 'writer',
      prompt: [join(root, '_shared', 'house-rules.md'), join(root, 'general', 'prompt.md')],
      pi_args: [],
    });
  });

  it('prints one line per profile, escapes stripped, and says when there are none', async () => {
    await profile('evil', { description: 'ok\u001b]0;pwned\u0007 then\nmore', model: 'm' });
    await profile('old', { prompt: 'gone.md' });
    const result = await runCli(['profiles'], box.env);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(result.stdout.split('\n')).toEqual([
      'evil  m · ok then more',
      'old   broken: prompt file "gone.md" is missing',
      '',
    ]);
    await rm(root, { recursive: true, force: true });
    const none = await runCli(['profiles'], box.env);
    expect(none).toMatchObject({ code: 0, stdout: `no profiles in ${root}\n` });
  });

  it('a profiles path that is a file is one line and exit 2', async () => {
    await rm(root, { recursive: true, force: true });
    await writeFile(root, '');
    const result = await runCli(['profiles', '--json'], box.env);
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `dogsled: profiles: ${root} is not a directory\n`,
    });
    await rm(root);
  });

  it('is a command of this build, listed in --help', async () => {
    const help = await runCli(['--help'], box.env);
    expect(help.stdout).toMatch(/^ {2}profiles\b(?!.*later)/m);
    const own = await runCli(['profiles', '--help'], box.env);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('Usage: dogsled profiles');
  });
});
