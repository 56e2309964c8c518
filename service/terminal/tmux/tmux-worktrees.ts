// Worktrees in tmux, as Herdr's worktree verbs do them: Git's own list (through service/git), and a
// worktree opened as a detached session of its own whose session option @dogsled-worktree names the
// checkout, so the listing shows which session shows which worktree (cleanup and close-child read
// `workspace.worktree`). tmux has no repository workspaces, so no anchor session is ever opened for
// the main checkout; a session that already shows the worktree answers `already_open`.

import { realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import { type RepositoryIdentity, repositoryAt } from '../../git/repository.js';
import type { GitWorktree } from '../../git/worktrees.js';
import type { OpenWorktreeOptions, WorktreeList, WorktreeOpened, WorktreeScope } from '../port.js';
import type { Worktree } from '../port-records.js';
import { TerminalError } from '../terminal-errors.js';
import type { TmuxTerminal } from './tmux.js';
import { SESSION_ID } from './tmux-argv.js';
import { OPT, type PaneRow, worktreeOf } from './tmux-records.js';

interface Source {
  repository: RepositoryIdentity & { main: string };
  rows: PaneRow[];
}

export class TmuxWorktrees {
  constructor(private readonly port: TmuxTerminal) {}

  async list(scope: WorktreeScope = {}): Promise<WorktreeList> {
    const { repository, rows } = await this.source(scope, 'worktree.list');
    const shown = await showing(rows);
    const main = repository.main;
    const anchor = shown.get(await canonical(main));
    return {
      source: {
        repo_key: repository.commonDir,
        repo_name: basename(main),
        repo_root: main,
        source_checkout_path: main,
        ...(anchor === undefined ? {} : { source_workspace_id: anchor }),
      },
      worktrees: await Promise.all(
        repository.worktrees.map((entry) => this.record(entry, repository, shown)),
      ),
    };
  }

  async open(options: OpenWorktreeOptions): Promise<WorktreeOpened> {
    const method = 'worktree.open';
    if ((options.path === undefined) === (options.branch === undefined)) {
      throw new TerminalError('invalid_request', 'tmux worktree open: exactly one of path or branch', {
        method,
      });
    }
    const { repository, rows } = await this.source(options, method);
    const entry = await pick(repository.worktrees, options, method);
    const shown = await showing(rows);
    const worktree = await this.record(entry, repository, shown);
    const open = worktree.open_workspace_id;
    if (open !== undefined) {
      const root = rows.find((row) => row.session_id === open) as PaneRow;
      return { ...this.port.created(root), worktree, already_open: true };
    }
    const created = await this.port.createWorkspace({
      cwd: entry.path,
      label: options.label ?? basename(entry.path),
    });
    const id = created.workspace.workspace_id;
    const ref = {
      repo_key: repository.commonDir,
      repo_name: basename(repository.main),
      repo_root: repository.main,
      checkout_path: entry.path,
      is_linked_worktree: !entry.main,
    };
    if (!SESSION_ID.test(id)) throw new TerminalError('protocol', `tmux: session id ${id}`, { method });
    await this.port.client.run(['set-option', '-t', id, OPT.worktree, JSON.stringify(ref)], method);
    return {
      ...created,
      workspace: { ...created.workspace, worktree: ref },
      worktree: { ...worktree, open_workspace_id: id },
      already_open: false,
    };
  }

  /** The repository of the scope (a directory, a session's checkout, else the caller's session). */
  private async source(scope: WorktreeScope, method: string): Promise<Source> {
    if (scope.cwd !== undefined && scope.workspaceId !== undefined) {
      throw new TerminalError('invalid_request', 'only one of workspace_id or cwd may be supplied', {
        method,
      });
    }
    const rows = await this.port.rows();
    let dir = scope.cwd;
    if (dir === undefined) {
      const ws = scope.workspaceId ?? (await this.port.currentPane().catch(() => undefined))?.workspace_id;
      const row = rows.find((r) => r.session_id === ws);
      if (row === undefined) {
        throw new TerminalError('workspace_not_found', `tmux: workspace ${ws ?? '(none)'} not found`, {
          method,
        });
      }
      dir = worktreeOf(row)?.checkout_path ?? row.pane_current_path;
    }
    const repository = await repositoryAt(dir, { env: this.port.gitEnv }).catch(() => undefined);
    if (repository === undefined || repository.main === null) {
      throw new TerminalError('not_git_worktree', `tmux: ${dir} is not inside a Git work tree`, { method });
    }
    return { repository: { ...repository, main: repository.main }, rows };
  }

  private async record(
    entry: GitWorktree,
    repository: RepositoryIdentity & { main: string },
    shown: ReadonlyMap<string, string>,
  ): Promise<Worktree> {
    const open = shown.get(await canonical(entry.path));
    return {
      path: entry.path,
      ...(entry.branch === null ? {} : { branch: entry.branch }),
      is_bare: entry.bare,
      is_detached: entry.detached,
      is_prunable: entry.prunable !== null,
      is_linked_worktree: !entry.main,
      ...(open === undefined ? {} : { open_workspace_id: open }),
      label: basename(repository.main),
    };
  }
}

/** The worktree `options` names: by path (canonical), or the one live worktree of the branch. */
async function pick(
  worktrees: readonly GitWorktree[],
  options: OpenWorktreeOptions,
  method: string,
): Promise<GitWorktree> {
  const missing = (why: string) => new TerminalError('worktree_not_found', `tmux: ${why}`, { method });
  let entry: GitWorktree | undefined;
  if (options.path !== undefined) {
    if (!options.path.startsWith('/'))
      throw new TerminalError('invalid_request', 'worktree path must be absolute', { method });
    const wanted = await canonical(options.path);
    for (const worktree of worktrees) if ((await canonical(worktree.path)) === wanted) entry = worktree;
    if (entry === undefined) throw missing(`worktree ${options.path} not found`);
  } else {
    const ref = options.branch?.startsWith('refs/') ? options.branch : `refs/heads/${options.branch}`;
    const matches = worktrees.filter((w) => !w.bare && w.prunable === null && w.branch === ref);
    if (matches.length === 0) throw missing(`no worktree of branch ${options.branch}`);
    if (matches.length > 1)
      throw new TerminalError('invalid_request', `tmux: several worktrees of ${ref}`, { method });
    entry = matches[0] as GitWorktree;
  }
  if (entry.bare || entry.prunable !== null) throw missing(`worktree ${entry.path} cannot be opened`);
  return entry;
}

/** Canonical checkout path → the session showing it (its @dogsled-worktree). */
async function showing(rows: readonly PaneRow[]): Promise<Map<string, string>> {
  const shown = new Map<string, string>();
  for (const row of rows) {
    const ref = worktreeOf(row);
    if (ref === undefined) continue;
    const path = await canonical(ref.checkout_path);
    if (!shown.has(path)) shown.set(path, row.session_id);
  }
  return shown;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}
