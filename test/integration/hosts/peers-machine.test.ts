// Where the fleet's hosts come from and `dogsled machine`: Herdr's saved machines (the fake Herdr's
// 0.9 machine verbs) when it has any, else `[[hosts]]` in dogsled's config, edited in place with its
// comments kept; refusals for bad entries, hostile names and hostile files.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tree.js';

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const CONFIG = `# my fleet
free_core_fraction_min = 0.25

[[hosts]]
id = "netcup"   # the big one
target = "me@netcup.example"

[[hosts]]
id = "momo"
label = "momokaya-2"
enabled = true

[cleanup]
repositories = []
`;

async function machines(env = box.env) {
  const result = await runCli(['machine', 'list', '--json'], env);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

describe('[[hosts]] in the config', () => {
  it('lists the configured hosts with their defaults when there is no Herdr', async () => {
    await writeFile(box.configPath, CONFIG);
    expect(await machines()).toEqual({
      source: 'config',
      hosts: [
        { id: 'netcup', label: 'netcup', target: 'me@netcup.example', enabled: true },
        { id: 'momo', label: 'momokaya-2', target: 'momo', enabled: true },
      ],
    });
    const text = await runCli(['machine', 'list'], box.env);
    expect(text.stdout).toMatch(
      /^ID\s+LABEL\s+TARGET\s+STATE\nnetcup\s+netcup\s+me@netcup.example\s+enabled\n/,
    );
  });

  it.each([
    ['an unknown key', '[[hosts]]\nid = "a"\nport = 22\n', 'unknown key "hosts.0.port"'],
    ['a bad id', '[[hosts]]\nid = "a b"\n', 'hosts.id: expected a host id'],
    ['the id local', '[[hosts]]\nid = "local"\n', 'hosts.id: expected a host id'],
    [
      'a target ssh would take for an option',
      '[[hosts]]\nid = "a"\ntarget = "-oProxyCommand=x"\n',
      'hosts.target',
    ],
    ['an escape in a label', '[[hosts]]\nid = "a"\nlabel = "\\u001b[2J"\n', 'hosts.label'],
    [
      'a label that is another host id',
      '[[hosts]]\nid = "a"\n[[hosts]]\nid = "b"\nlabel = "a"\n',
      '"a" names another host',
    ],
  ])('refuses %s in one line, exit 2', async (_what, toml, message) => {
    await writeFile(box.configPath, toml);
    const result = await runCli(['machine', 'list'], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('\u001b');
  });

  it('renames, disables and enables a host by id or label, keeping every comment and other line', async () => {
    await writeFile(box.configPath, CONFIG);
    expect((await runCli(['machine', 'rename', 'netcup', 'big one'], box.env)).stdout).toBe(
      'renamed netcup: big one (me@netcup.example, enabled)\n',
    );
    expect((await runCli(['machine', 'disable', 'momokaya-2'], box.env)).code).toBe(0);
    const text = await readFile(box.configPath, 'utf8');
    expect(text).toContain('# my fleet\n');
    expect(text).toContain('id = "netcup"   # the big one\nlabel = "big one"\n');
    expect(text).toContain('label = "momokaya-2"\nenabled = false\n');
    expect(text).toContain('[cleanup]\nrepositories = []\n');
    expect(
      (await machines()).hosts.map((h: { label: string; enabled: boolean }) => [h.label, h.enabled]),
    ).toEqual([
      ['big one', true],
      ['momokaya-2', false],
    ]);
    await runCli(['machine', 'enable', 'momo'], box.env);
    expect((await machines()).hosts[1].enabled).toBe(true);
  });

  it('adds a host to a config that does not exist yet, and refuses a taken label', async () => {
    const added = await runCli(['machine', 'add', 'me@box.example', '--label', 'box'], box.env);
    expect(added.stdout).toBe('added box: box (me@box.example, enabled)\n');
    expect(await machines()).toMatchObject({ hosts: [{ id: 'box', target: 'me@box.example' }] });
    const again = await runCli(['machine', 'add', 'other@x', '--label', 'box'], box.env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('"box" names another host');
    expect((await machines()).hosts).toHaveLength(1);
  });

  it.each([
    ['an ssh option as target', ['machine', 'add', '-oProxyCommand=touch /tmp/x', '--label', 'x']],
    ['an escape in a label', ['machine', 'rename', 'netcup', 'a\u001b]0;t\u0007']],
    ['an unknown host', ['machine', 'disable', 'nowhere']],
    ['an unknown verb', ['machine', 'explode']],
  ])('refuses %s without touching the file', async (_what, args) => {
    await writeFile(box.configPath, CONFIG);
    const result = await runCli(args, box.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: machine: /);
    expect(result.stderr).not.toMatch(/[\u001b\u0007]/);
    expect(await readFile(box.configPath, 'utf8')).toBe(CONFIG);
  });

  it('shows the control characters of a refused label or target, so the error names what was typed', async () => {
    await writeFile(box.configPath, CONFIG);
    const label = await runCli(['machine', 'rename', 'netcup', 'big\u001b[31m'], box.env);
    expect(label.stderr).toBe(
      'dogsled: machine: label "big\\u001b[31m": expected a non-empty name without control characters\n',
    );
    const target = await runCli(['machine', 'add', 'u@h\u001b[31m', '--label', 'z'], box.env);
    expect(target.stderr).toMatch(/^dogsled: machine: "u@h\\u001b\[31m": not an ssh destination/);
    expect(await readFile(box.configPath, 'utf8')).toBe(CONFIG);
  });

  it('refuses a config that is a directory, naming it', async () => {
    await mkdir(box.configPath, { recursive: true });
    const result = await runCli(['machine', 'add', 'a@b', '--label', 'b'], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a regular file');
  });
});

describe("Herdr's saved machines", () => {
  let herdr: FakeHerdr;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const dir = await tempDir('dogsled-machines-');
    herdr = await startFakeHerdr({ dir });
    for (const [target, label] of [
      ['me@netcup.example', 'netcup'],
      ['me@momo.example', 'momokaya-2'],
    ]) {
      const { execFileSync } = await import('node:child_process');
      execFileSync('herdr', ['machine', 'add', target as string, '--label', label as string], {
        env: herdr.env,
      });
    }
  }, 30_000);
  afterAll(async () => {
    await herdr?.stop();
  });
  beforeEach(() => {
    env = { ...box.env, ...herdr.env, HOME: box.home };
  });

  it('are the hosts when Herdr has any; the config list is not used', async () => {
    await writeFile(box.configPath, CONFIG);
    expect(await machines(env)).toEqual({
      source: 'herdr',
      hosts: [
        { id: 'm1', label: 'netcup', target: 'me@netcup.example', enabled: true },
        { id: 'm2', label: 'momokaya-2', target: 'me@momo.example', enabled: true },
      ],
    });
  });

  it('rename and disable run herdr machine, and the config is left alone', async () => {
    await writeFile(box.configPath, CONFIG);
    expect((await runCli(['machine', 'rename', 'm2', 'momo'], env)).stdout).toBe(
      'renamed m2: momo (me@momo.example, enabled)\n',
    );
    expect((await runCli(['machine', 'disable', 'momo'], env)).code).toBe(0);
    expect((await machines(env)).hosts[1]).toEqual({
      id: 'm2',
      label: 'momo',
      target: 'me@momo.example',
      enabled: false,
    });
    expect(await readFile(box.configPath, 'utf8')).toBe(CONFIG);
    await runCli(['machine', 'enable', 'm2'], env);
    const missing = await runCli(['machine', 'disable', 'nowhere'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere');
  });

  it('reconnect and add open a new focused tab that runs the herdr machine command', async () => {
    await herdr.call('workspace.create', { cwd: box.home });
    const result = await runCli(['machine', 'reconnect', 'netcup', '--json'], env);
    expect(result.stderr).toBe('');
    const outcome = JSON.parse(result.stdout);
    expect(outcome).toMatchObject({ kind: 'tab', line: 'herdr machine reconnect m1' });
    const pane = (await herdr.call('pane.get', { pane_id: outcome.pane })).result.pane;
    expect(pane.focused).toBe(true);
    expect(pane.pane_id).toMatch(/^w1:p/);
    const added = JSON.parse(
      (await runCli(['machine', 'add', "me@it's", '--label', 'x y', '--json'], env)).stdout,
    );
    expect(added.line).toBe("herdr machine add 'me@it'\\''s' --label 'x y'");
  });
});
