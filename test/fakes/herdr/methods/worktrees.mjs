// worktree.list|open|create|remove over real `git worktree` (§2.5, Herdr's api/worktrees.rs):
// open/create start from the repo's parent checkout (a linked source → linked_worktree_source),
// open a parent "anchor" workspace when the main checkout has none, answer `already_open` on a
// repeat, and remove refuses a dirty checkout without force and never deletes the branch.
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import {
  addWorktree,
  branchSlug,
  canonical,
  generatedBranch,
  gitSpace,
  isDirty,
  listWorktrees,
  removeWorktree,
} from '../lib/git.mjs';
import { paneIds } from '../lib/layout.mjs';
import { ApiError } from '../lib/protocol.mjs';
import { gitRoot } from '../lib/records.mjs';

function absolute(path) {
  if (!isAbsolute(path)) throw new ApiError('invalid_request', 'worktree path must be absolute');
  return path;
}

export function worktreesMethods(model) {
  const pending = new Set();

  const workspaceForCheckout = (path) => {
    const target = canonical(path);
    for (const ws of model.workspaces.values()) {
      if (ws.worktree && canonical(ws.worktree.checkout_path) === target) return ws;
      const root = gitRoot(ws.cwd);
      if (root && canonical(root) === target) return ws;
    }
    return undefined;
  };

  const membership = (source, checkout, linked) => ({
    repo_key: source.key,
    repo_name: source.repoName,
    repo_root: source.repoRoot,
    checkout_path: checkout,
    is_linked_worktree: linked,
  });

  const setMembership = (ws, value) => {
    if (JSON.stringify(ws.worktree) === JSON.stringify(value)) return;
    ws.worktree = value;
    model.events.emit('workspace_updated', { workspace: model.workspaceInfo(ws) });
  };

  /** Where worktree actions start: {ws?, key, repoName, repoRoot, checkout}. */
  async function resolveSource(p, { forList = false } = {}) {
    const workspaceId = p.optStr('workspace_id');
    const cwd = p.optStr('cwd');
    if (workspaceId !== undefined && cwd !== undefined) {
      throw new ApiError('invalid_request', 'only one of workspace_id or cwd may be supplied');
    }
    let ws;
    let dir;
    if (workspaceId !== undefined) ws = model.workspace(workspaceId);
    else if (cwd !== undefined) dir = absolute(cwd);
    else {
      ws = model.activeWorkspace();
      if (!ws)
        throw new ApiError('invalid_request', 'workspace_id or cwd is required when no workspace is active');
    }
    const space = await gitSpace(dir ?? ws.worktree?.checkout_path ?? ws.cwd);
    if (!space)
      throw new ApiError('not_git_worktree', 'Herdr worktree actions require a path inside a Git work tree');
    if (space.isLinked && !forList) {
      throw new ApiError(
        'linked_worktree_source',
        'New and open worktree actions start from the repo parent workspace.',
      );
    }
    const owner = space.isLinked
      ? workspaceForCheckout(space.repoRoot)
      : (ws ?? workspaceForCheckout(space.repoRoot));
    return {
      ws: owner,
      key: space.key,
      repoName: space.repoName,
      repoRoot: space.repoRoot,
      checkout: space.repoRoot,
    };
  }

  const info = (source, entry) => {
    const out = {
      path: entry.path,
      is_bare: entry.isBare,
      is_detached: entry.isDetached,
      is_prunable: entry.isPrunable,
      is_linked_worktree: canonical(entry.path) !== canonical(source.repoRoot),
      label: source.repoName,
    };
    if (entry.branch) out.branch = entry.branch;
    const open = workspaceForCheckout(entry.path);
    if (open) out.open_workspace_id = open.id;
    return out;
  };

  const entries = async (source) => {
    try {
      return await listWorktrees(source.repoRoot);
    } catch (error) {
      throw new ApiError('worktree_list_failed', error.message);
    }
  };

  /** The repo's parent workspace, opened (unfocused) when the main checkout has none. */
  async function ensureParent(source) {
    if (!source.ws) ({ ws: source.ws } = await model.createWorkspace({ cwd: source.checkout }));
    setMembership(source.ws, membership(source, source.checkout, false));
  }

  const opened = (ws) => {
    const tab = ws.tabs.get(ws.activeTabId);
    return {
      workspace: model.workspaceInfo(ws),
      tab: model.tabInfo(tab),
      root_pane: model.paneInfo(model.panes.get(paneIds(tab.root)[0] ?? tab.focusedPaneId)),
    };
  };

  return {
    'worktree.list': async (p) => {
      const source = await resolveSource(p, { forList: true });
      const list = await entries(source);
      const sourceInfo = {
        repo_key: source.key,
        repo_name: source.repoName,
        repo_root: source.repoRoot,
        source_checkout_path: source.checkout,
      };
      if (source.ws) sourceInfo.source_workspace_id = source.ws.id;
      return {
        type: 'worktree_list',
        source: sourceInfo,
        worktrees: list.map((entry) => info(source, entry)),
      };
    },

    'worktree.open': async (p) => {
      const path = p.optStr('path');
      const branch = p.optStr('branch');
      const label = p.optStr('label');
      const focus = p.bool('focus');
      if ((path === undefined) === (branch === undefined)) {
        throw new ApiError('invalid_request', 'exactly one of path or branch is required');
      }
      const source = await resolveSource(p);
      const list = await entries(source);
      let entry;
      if (path !== undefined) {
        const wanted = canonical(absolute(path));
        entry = list.find((item) => canonical(item.path) === wanted);
        if (!entry) throw new ApiError('worktree_not_found', 'worktree path not found');
      } else {
        const matches = list.filter(
          (i) => !i.isBare && !i.isPrunable && !i.isDetached && i.branch === branch,
        );
        if (matches.length === 0) throw new ApiError('worktree_not_found', 'worktree branch not found');
        if (matches.length > 1)
          throw new ApiError('ambiguous_worktree_branch', 'multiple worktrees matched branch');
        entry = matches[0];
      }
      if (entry.isBare || entry.isPrunable)
        throw new ApiError('worktree_not_found', 'worktree cannot be opened');
      const alreadyOpen = workspaceForCheckout(entry.path);
      const targetIsSource = canonical(entry.path) === canonical(source.checkout);
      await ensureParent(source);
      let ws = alreadyOpen ?? (targetIsSource ? source.ws : undefined);
      if (ws && focus) model.focusWorkspace(ws);
      if (!ws) ({ ws } = await model.createWorkspace({ cwd: entry.path, focus }));
      setMembership(ws, membership(source, entry.path, canonical(entry.path) !== canonical(source.repoRoot)));
      if (label !== undefined) ws.customLabel = label;
      const worktree = info(source, entry);
      model.events.emit('worktree_opened', {
        workspace: model.workspaceInfo(ws),
        worktree,
        already_open: alreadyOpen !== undefined,
      });
      return { type: 'worktree_opened', ...opened(ws), worktree, already_open: alreadyOpen !== undefined };
    },

    'worktree.create': async (p) => {
      const branch = (p.optStr('branch') ?? generatedBranch(Date.now() * 1000)).trim();
      const base = p.optStr('base', 'HEAD');
      const pathParam = p.optStr('path');
      const label = p.optStr('label');
      const focus = p.bool('focus');
      if (branch === '') throw new ApiError('invalid_request', 'branch is required');
      const source = await resolveSource(p);
      const home = model.options.env.HOME ?? '/';
      const path =
        pathParam !== undefined
          ? absolute(pathParam)
          : join(home, '.herdr', 'worktrees', source.repoName, branchSlug(branch));
      const key = canonical(path);
      if (pending.has(key)) {
        throw new ApiError(
          'worktree_operation_in_progress',
          'worktree operation is already in progress for this checkout',
        );
      }
      pending.add(key);
      try {
        try {
          mkdirSync(dirname(path), { recursive: true });
          await addWorktree(source.checkout, path, branch, base);
        } catch (error) {
          throw new ApiError('worktree_create_failed', error.message);
        }
        await ensureParent(source);
        const { ws } = await model.createWorkspace({ cwd: path, focus, label });
        setMembership(ws, membership(source, canonical(path), true));
        const entry = (await entries(source)).find((item) => canonical(item.path) === canonical(path));
        const worktree = info(
          source,
          entry ?? { path, branch, isBare: false, isDetached: false, isPrunable: false },
        );
        model.events.emit('worktree_created', { workspace: model.workspaceInfo(ws), worktree });
        return { type: 'worktree_created', ...opened(ws), worktree };
      } finally {
        pending.delete(key);
      }
    },

    'worktree.remove': async (p) => {
      const ws = model.workspace(p.str('workspace_id'));
      const force = p.bool('force');
      if (!ws.worktree?.is_linked_worktree) {
        throw new ApiError('not_linked_worktree', 'workspace is not a linked worktree checkout');
      }
      const { checkout_path: path, repo_root: root } = ws.worktree;
      const key = canonical(path);
      if (pending.has(key)) {
        throw new ApiError(
          'worktree_operation_in_progress',
          'worktree operation is already in progress for this checkout',
        );
      }
      pending.add(key);
      try {
        if (!force && (await isDirty(path))) {
          throw new ApiError(
            'dirty_worktree_requires_force',
            `worktree ${path} has uncommitted changes; use force`,
          );
        }
        const branch = (await listWorktrees(root).catch(() => [])).find(
          (e) => canonical(e.path) === key,
        )?.branch;
        const worktree = {
          path,
          is_bare: false,
          is_detached: branch === undefined,
          is_prunable: false,
          is_linked_worktree: true,
          label: ws.worktree.repo_name,
        };
        if (branch) worktree.branch = branch;
        const workspace = model.workspaceInfo(ws);
        model.closeWorkspace(ws);
        try {
          await removeWorktree(root, path, force);
        } catch (error) {
          const dirty = /modified or untracked/.test(error.message);
          throw new ApiError(
            dirty ? 'dirty_worktree_requires_force' : 'worktree_remove_failed',
            error.message,
          );
        }
        model.events.emit('worktree_removed', { workspace_id: ws.id, workspace, worktree, forced: force });
        return { type: 'worktree_removed', workspace_id: ws.id, path, forced: force };
      } finally {
        pending.delete(key);
      }
    },
  };
}
