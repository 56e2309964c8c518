// The tmux port's worktree verbs against real git and a real tmux: a worktree opens as a detached
// session of its own that the listing shows as that checkout's workspace, a second open answers
// already_open, a hostile path survives tmux's format and target parsing, a session option that is
// not ours (garbage, escapes) shows no worktree, and a directory outside git is not_git_worktree.

import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { failure } from './terminal-port-suite.js';

let box: Sandbox;
let server: TmuxServer;
let port: TerminalPort;
let repo: Repo;

beforeEach(async () => {
  box = await sandbox();
  repo = await freshRepo();
  server = await startTmuxServer({
    dir: box.root,
    name: 'worktrees',
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: box.home },
  });
  port = await openTerminal({ env: server.env, home: box.home });
});

afterEach(async () => {
  await server.kill();
  await box.cleanup();
});
afterAll(removeScenarios);

describe('worktrees in tmux', () => {
  it('opens a hostile worktree path as its own session, shown in the listing, and reopens it as already_open', async () => {
    const path = join(repo.root, "wt #{pane_id} ;a; it's");
    await repo.git(['worktree', 'add', '-q', '-b', 'feat/x', path]);
    const before = await port.listWorktrees({ cwd: repo.main });
    expect(before.source).toMatchObject({ repo_root: repo.main, source_checkout_path: repo.main });
    expect(before.source.source_workspace_id).toBeUndefined();
    expect(before.worktrees.map((w) => [w.path, w.branch ?? null, w.is_linked_worktree])).toEqual([
      [repo.main, 'refs/heads/main', false],
      [path, 'refs/heads/feat/x', true],
    ]);

    const opened = await port.openWorktree({ cwd: repo.main, path, focus: false });
    expect(opened.already_open).toBe(false);
    const session = opened.workspace.workspace_id;
    expect(session).toMatch(/^\$\d+$/);
    expect(opened.root_pane.cwd).toBe(path);
    const shown = (await port.listAll()).workspaces.find((w) => w.workspace_id === session);
    expect(shown?.worktree).toMatchObject({
      checkout_path: path,
      repo_root: repo.main,
      is_linked_worktree: true,
    });
    expect(shown?.label).toContain('#{pane_id}');

    const listed = await port.listWorktrees({ cwd: repo.main });
    expect(listed.worktrees.find((w) => w.path === path)?.open_workspace_id).toBe(session);
    const again = await port.openWorktree({ cwd: repo.main, branch: 'feat/x' });
    expect(again).toMatchObject({ already_open: true, workspace: { workspace_id: session } });
    expect((await port.listWorkspaces()).filter((w) => w.worktree !== undefined)).toHaveLength(1);
  });

  it('shows no worktree for a session option that is not a worktree record', async () => {
    await server.tmux(
      'set-option',
      '-t',
      'base',
      '@dogsled-worktree',
      '{"checkout_path":"\u001b]0;x\u0007"}',
    );
    const other = await port.createWorkspace({ cwd: box.home });
    await server.tmux('set-option', '-t', other.workspace.workspace_id, '@dogsled-worktree', 'not json');
    expect((await port.listWorkspaces()).every((w) => w.worktree === undefined)).toBe(true);
  });

  it('refuses a directory outside git, an unknown path or branch, and a relative path', async () => {
    const plain = join(box.root, 'plain');
    await mkdir(plain);
    expect((await failure(port.listWorktrees({ cwd: plain }))).code).toBe('not_git_worktree');
    expect((await failure(port.openWorktree({ cwd: repo.main, path: join(repo.root, 'none') }))).code).toBe(
      'worktree_not_found',
    );
    expect((await failure(port.openWorktree({ cwd: repo.main, branch: 'nope' }))).code).toBe(
      'worktree_not_found',
    );
    expect((await failure(port.openWorktree({ cwd: repo.main, path: 'relative/x' }))).code).toBe(
      'invalid_request',
    );
    expect((await port.listWorkspaces()).map((w) => w.label)).toEqual(['base']);
  });
});
