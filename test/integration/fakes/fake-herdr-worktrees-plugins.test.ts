// The fake Herdr's worktrees over real `git worktree` and its plugin registry and plugin panes
// (CONTRACT §5, §9.3 items 13-14, close confirmation of §2.5).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: records from the fake are plain JSON, checked by the assertions
type Json = any;

import { tempDir, writeTree } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

let dir: string;
let repo: string;
let herdr: FakeHerdr;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();
}

beforeAll(async () => {
  dir = await tempDir('fh-wt-');
  repo = join(dir, 'repo');
  await mkdir(repo);
  git(repo, 'init', '--quiet', '--initial-branch', 'main');
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  await writeFile(join(repo, 'README'), 'hi\n');
  git(repo, 'add', 'README');
  git(repo, 'commit', '--quiet', '-m', 'init');
  herdr = await startFakeHerdr({ dir, env: { HOME: dir } });
});

afterAll(async () => {
  await herdr?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function ok(method: string, params: Record<string, unknown> = {}) {
  const response = await herdr.call(method, params);
  if (!response.result) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
  return response.result;
}

async function errorCode(method: string, params: Record<string, unknown>) {
  return (await herdr.call(method, params)).error?.code as string | undefined;
}

describe('worktrees', () => {
  it('creates, lists, reopens and removes worktrees with real git, keeping the branch', async () => {
    const created = await ok('worktree.create', { cwd: repo, branch: 'dogsled/t42' });
    const checkout = join(dir, '.herdr', 'worktrees', 'repo', 'dogsled-t42');
    expect(created.worktree).toMatchObject({
      path: checkout,
      branch: 'dogsled/t42',
      is_linked_worktree: true,
      label: 'repo',
    });
    expect(created.workspace.worktree).toMatchObject({
      repo_name: 'repo',
      checkout_path: checkout,
      is_linked_worktree: true,
    });
    expect(created.root_pane.cwd).toBe(checkout);
    expect(existsSync(join(checkout, 'README'))).toBe(true);

    const list = await ok('worktree.list', { cwd: repo });
    expect(list.source).toMatchObject({ repo_name: 'repo', repo_root: repo, source_checkout_path: repo });
    const anchor = list.source.source_workspace_id;
    expect(anchor).toMatch(/^w/);
    expect(
      list.worktrees.map((w: Json) => [w.path, w.branch, w.is_linked_worktree, w.open_workspace_id]),
    ).toEqual([
      [repo, 'main', false, anchor],
      [checkout, 'dogsled/t42', true, created.workspace.workspace_id],
    ]);

    const again = await ok('worktree.open', { cwd: repo, branch: 'dogsled/t42' });
    expect(again).toMatchObject({
      already_open: true,
      workspace: { workspace_id: created.workspace.workspace_id },
    });
    expect(await errorCode('worktree.open', { cwd: repo })).toBe('invalid_request');
    expect(await errorCode('worktree.open', { cwd: repo, path: checkout, branch: 'dogsled/t42' })).toBe(
      'invalid_request',
    );
    expect(await errorCode('worktree.open', { cwd: repo, path: 'relative/path' })).toBe('invalid_request');
    expect(await errorCode('worktree.open', { cwd: repo, branch: 'nope' })).toBe('worktree_not_found');
    expect(await errorCode('worktree.open', { cwd: checkout, branch: 'main' })).toBe(
      'linked_worktree_source',
    );
    expect(await errorCode('worktree.list', { cwd: dir })).toBe('not_git_worktree');
    expect(await errorCode('worktree.remove', { workspace_id: anchor })).toBe('not_linked_worktree');

    await writeFile(join(checkout, 'dirty.txt'), 'x');
    expect(await errorCode('worktree.remove', { workspace_id: created.workspace.workspace_id })).toBe(
      'dirty_worktree_requires_force',
    );
    expect(existsSync(checkout)).toBe(true);
    const removed = await ok('worktree.remove', {
      workspace_id: created.workspace.workspace_id,
      force: true,
    });
    expect(removed).toEqual({
      type: 'worktree_removed',
      workspace_id: created.workspace.workspace_id,
      path: checkout,
      forced: true,
    });
    expect(existsSync(checkout)).toBe(false);
    expect(git(repo, 'branch', '--list', 'dogsled/t42')).toContain('dogsled/t42');
    expect(await errorCode('workspace.get', { workspace_id: created.workspace.workspace_id })).toBe(
      'workspace_not_found',
    );
  });

  it('asks for confirmation before a pane close would close a worktree group', async () => {
    const created = await ok('worktree.create', { cwd: repo, branch: 'dogsled/t43' });
    const anchor = (await ok('worktree.list', { cwd: repo })).source.source_workspace_id;
    const anchorPane = (await ok('pane.list', { workspace_id: anchor })).panes[0].pane_id;
    expect(await errorCode('pane.close', { pane_id: anchorPane })).toBe('confirmation_required');
    await ok('_fake.config.set', { confirm_close: false });
    await ok('pane.close', { pane_id: anchorPane });
    await ok('_fake.config.set', { confirm_close: true });
    await ok('worktree.remove', { workspace_id: created.workspace.workspace_id });
  });
});

describe('plugins', () => {
  let plugin: string;

  beforeAll(async () => {
    plugin = await writeTree(join(dir, 'plugin'), {
      'herdr-plugin.toml': `id = "dogsled"
name = "Dogsled"
version = "0.1.0"
min_herdr_version = "0.8.0"
platforms = ["linux"]

[[panes]]
id = "sidebar"
title = "Dogsled"
placement = "split"
command = ["sh", "-c", "echo board-for-$HERDR_PLUGIN_ID-$HERDR_PLUGIN_ENTRYPOINT_ID; exec sleep 60"]

[[panes]]
id = "overlay"
title = "Overlay"
command = ["sh", "-c", "exec sleep 60"]

[[panes]]
id = "popup"
title = "Popup"
placement = "popup"
width = "80%"
command = ["sh", "-c", "exec sleep 60"]
`,
      'bad-min/herdr-plugin.toml': 'id = "bad"\nname = "Bad"\nversion = "1"\n',
      'newer/herdr-plugin.toml': 'id = "newer"\nname = "N"\nversion = "1"\nmin_herdr_version = "9.0.0"\n',
      'bad-size/herdr-plugin.toml':
        'id = "size"\nname = "S"\nversion = "1"\nmin_herdr_version = "0.8.0"\n[[panes]]\nid = "p"\ntitle = "P"\nwidth = 38\ncommand = ["true"]\n',
    });
  });

  it('validates manifests on link and records linked plugins in plugins.json', async () => {
    expect(await errorCode('plugin.link', { path: join(plugin, 'bad-min') })).toBe(
      'invalid_plugin_min_herdr_version',
    );
    expect(await errorCode('plugin.link', { path: join(plugin, 'newer') })).toBe(
      'plugin_requires_newer_herdr',
    );
    expect(await errorCode('plugin.link', { path: join(plugin, 'bad-size') })).toBe(
      'invalid_plugin_pane_size',
    );
    expect(await errorCode('plugin.link', { path: join(plugin, 'missing') })).toBe(
      'plugin_manifest_not_found',
    );
    const linked = await ok('plugin.link', { path: plugin });
    expect(linked.plugin).toMatchObject({ plugin_id: 'dogsled', plugin_root: plugin, enabled: true });
    expect((await ok('plugin.list')).plugins.map((p: Json) => p.plugin_id)).toEqual(['dogsled']);
    const registry = JSON.parse(await readFile(join(dir, 'config', 'herdr', 'plugins.json'), 'utf8'));
    expect(registry.plugins[0].plugin_id).toBe('dogsled');
  });

  it('opens a new labelled pane on every open and closes only plugin panes', async () => {
    const { root_pane } = await ok('workspace.create', { cwd: dir, focus: true });
    const open = () =>
      ok('plugin.pane.open', {
        plugin_id: 'dogsled',
        entrypoint: 'sidebar',
        target_pane_id: root_pane.pane_id,
        direction: 'right',
      });
    const first = (await open()).plugin_pane;
    const second = (await open()).plugin_pane;
    expect(first).toMatchObject({ plugin_id: 'dogsled', entrypoint: 'sidebar', pane: { label: 'Dogsled' } });
    expect(second.pane.pane_id).not.toBe(first.pane.pane_id);
    await waitFor("the sidebar plugin's output in the pane", async () => {
      const { read } = await ok('pane.read', { pane_id: first.pane.pane_id, source: 'recent' });
      return read.text.includes('board-for-dogsled-sidebar') ? true : undefined;
    });

    const bad = (params: Record<string, unknown>) =>
      errorCode('plugin.pane.open', { plugin_id: 'dogsled', ...params });
    expect(await bad({ plugin_id: 'nope', entrypoint: 'sidebar' })).toBe('plugin_not_found');
    expect(await bad({ entrypoint: 'nope' })).toBe('plugin_pane_not_found');
    expect(await bad({ entrypoint: 'overlay', direction: 'right' })).toBe('invalid_params');
    expect(await bad({ entrypoint: 'sidebar', workspace_id: 'w1' })).toBe('invalid_params');
    expect(await bad({ entrypoint: 'sidebar', width: 38 })).toBe('invalid_params');
    expect(await ok('plugin.pane.open', { plugin_id: 'dogsled', entrypoint: 'popup' })).toEqual({
      type: 'ok',
    });

    expect(await errorCode('plugin.pane.close', { pane_id: root_pane.pane_id })).toBe(
      'plugin_pane_not_found',
    );
    expect(await ok('plugin.pane.close', { pane_id: first.pane.pane_id })).toEqual({
      type: 'plugin_pane_closed',
      pane_id: first.pane.pane_id,
    });
    expect(await errorCode('pane.get', { pane_id: first.pane.pane_id })).toBe('pane_not_found');

    await ok('plugin.link', { path: plugin, enabled: false });
    expect(await bad({ entrypoint: 'sidebar' })).toBe('plugin_disabled');
  });
});
