import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadRepoConfig } from '../../../service/state/config/repo-config.js';
import { fixtureTree } from '../../helpers/tree.js';

async function repoWith(toml: string | undefined): Promise<string> {
  return fixtureTree(toml === undefined ? { 'README.md': 'x' } : { 'dogsled.toml': toml });
}

describe('loadRepoConfig', () => {
  test('a repository without dogsled.toml gets the defaults', async () => {
    const main = await repoWith(undefined);
    expect(await loadRepoConfig(main)).toEqual({
      file: null,
      worktree: { dir: '.worktrees', dir_path: join(main, '.worktrees'), setup: [], teardown: [] },
    });
  });

  test('reads dir, setup and teardown, resolving dir against the main checkout', async () => {
    const main = await repoWith(
      [
        '[worktree]',
        'dir = "../trees"',
        'setup = ["npm ci", "cp {main}/.env {path}/.env"]',
        "teardown = ['echo {branch}']",
      ].join('\n'),
    );
    expect(await loadRepoConfig(main)).toEqual({
      file: join(main, 'dogsled.toml'),
      worktree: {
        dir: '../trees',
        dir_path: join(main, '..', 'trees'),
        setup: ['npm ci', 'cp {main}/.env {path}/.env'],
        teardown: ['echo {branch}'],
      },
    });
  });

  test('a partial [worktree] table keeps the other defaults', async () => {
    const main = await repoWith('[worktree]\nsetup = ["make"]\n');
    const config = await loadRepoConfig(main);
    expect(config.worktree).toEqual({
      dir: '.worktrees',
      dir_path: join(main, '.worktrees'),
      setup: ['make'],
      teardown: [],
    });
  });

  test('an empty file means the defaults', async () => {
    const main = await repoWith('');
    expect((await loadRepoConfig(main)).worktree.dir).toBe('.worktrees');
  });

  test.each([
    ['[hooks]\nx = 1\n', 'unknown key "hooks"'],
    ['[worktree]\nsetupp = []\n', 'unknown key "worktree.setupp"'],
    ['dir = ".w"\n', 'unknown key "dir"'],
  ])('an unknown key is an error naming the key and the file (%#)', async (toml, message) => {
    const main = await repoWith(toml);
    await expect(loadRepoConfig(main)).rejects.toThrow(
      `repository config ${join(main, 'dogsled.toml')}: ${message}`,
    );
  });

  test.each([
    ['worktree = 3\n', 'worktree must be a table'],
    ['[worktree]\ndir = 3\n', 'worktree.dir must be a non-empty path relative to the main checkout'],
    ['[worktree]\ndir = ""\n', 'worktree.dir must be a non-empty path relative to the main checkout'],
    ['[worktree]\ndir = "/abs"\n', 'worktree.dir must be a non-empty path relative to the main checkout'],
    ['[worktree]\nsetup = "make"\n', 'worktree.setup must be an array of non-empty command strings'],
    ['[worktree]\nteardown = [1]\n', 'worktree.teardown must be an array of non-empty command strings'],
    ['[worktree]\nteardown = [""]\n', 'worktree.teardown must be an array of non-empty command strings'],
  ])('a wrong type is an error naming the key (%#)', async (toml, message) => {
    const main = await repoWith(toml);
    await expect(loadRepoConfig(main)).rejects.toThrow(`${join(main, 'dogsled.toml')}: ${message}`);
  });

  test('a bad placeholder is reported at load time with the command and its position', async () => {
    const main = await repoWith('[worktree]\nsetup = ["make", "echo {base}"]\n');
    await expect(loadRepoConfig(main)).rejects.toThrow(
      'worktree.setup[1]: unknown placeholder {base} in command: echo {base}',
    );
  });

  test('a lone brace in a teardown command is reported at load time', async () => {
    const main = await repoWith('[worktree]\nteardown = ["awk \'{print $1}\' f"]\n');
    await expect(loadRepoConfig(main)).rejects.toThrow(
      /worktree\.teardown\[0\]: unknown placeholder \{print \$1\}/,
    );
  });

  test('malformed TOML names the line', async () => {
    const main = await repoWith('[worktree]\ndir = \n');
    await expect(loadRepoConfig(main)).rejects.toThrow(/dogsled\.toml: malformed TOML at line 2/);
  });

  test('a dogsled.toml that is not a readable file is an error, not the defaults', async () => {
    const main = await repoWith(undefined);
    await mkdir(join(main, 'dogsled.toml'));
    await expect(loadRepoConfig(main)).rejects.toThrow(/dogsled\.toml: not a regular file$/);
  });

  test('a FIFO, a device or a dangling link in its place is refused without blocking or reading', async () => {
    const main = await repoWith(undefined);
    const file = join(main, 'dogsled.toml');
    execFileSync('mkfifo', [file]);
    await expect(loadRepoConfig(main)).rejects.toThrow(/dogsled\.toml: not a regular file$/);
    await rm(file);
    await symlink('/dev/zero', file);
    await expect(loadRepoConfig(main)).rejects.toThrow(/dogsled\.toml: not a regular file$/);
    await rm(file);
    // A link to nothing is no file: the defaults, as when there is none.
    await symlink(join(main, 'missing.toml'), file);
    expect((await loadRepoConfig(main)).file).toBeNull();
  });
});
