import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATER_COMMANDS } from '../../../cli/later.js';
import { ROOT, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

let box: Sandbox;
beforeAll(async () => {
  box = await sandbox();
});
afterAll(async () => {
  await box.cleanup();
});

describe('the command line', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    const result = await runCli(['--version'], box.env);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it.each(['serve', 'status', 'place', 'run', 'doctor'])(
    '%s --help describes it and exits 0',
    async (name) => {
      const result = await runCli([name, '--help'], box.env);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: dogsled ${name}`);
      expect(result.stdout).toContain('--help');
      // Every command takes the global options, and its help lists them.
      expect(result.stdout).toContain('--config <path>');
      expect(result.stdout).toContain('--terminal <backend>');
    },
  );

  it('send --help offers --host for a peer, as send --host does', async () => {
    const result = await runCli(['send', '--help'], box.env);
    expect(result.stdout).toContain("send a message to an agent's inbox, on this host or a peer");
    expect(result.stdout).not.toContain('only this host');
  });

  it('--help lists every command of the spec', async () => {
    const result = await runCli(['--help'], box.env);
    expect(result.code).toBe(0);
    const built = [
      'serve',
      'status',
      'place',
      'doctor',
      'prune',
      'run',
      'exec',
      'ps',
      'logs',
      'stop',
      'wait',
      'board',
      'sidebar',
      'quota',
    ];
    const messages = ['send', 'inbox', 'hook'];
    for (const name of [...built, 'cancel', 'items', ...messages, ...LATER_COMMANDS.map((c) => c.name)]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it.each(LATER_COMMANDS.map((c) => [c.name]))(
    '%s says in one line that it is not in this build, exit 2',
    async (name) => {
      const result = await runCli([name, '--json', 'anything'], box.env);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^dogsled: ${name}: not available in this build yet \\(.+\\)\\n$`),
      );
    },
  );

  it('an unknown command is one line and exit 2', async () => {
    const result = await runCli(['stauts'], box.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: unknown command 'stauts'/);
  });
});
