// The loss rule against content `git status --porcelain` does not print: edits behind the
// assume-unchanged and skip-worktree bits (set by hand, by core.ignoreStat, by a sparse checkout),
// repository settings that would hide a change, submodules, repositories and worktrees nested in
// ignored directories, refs private to a worktree. One repository holds every case, each its own
// worktree on a landed branch; one survey and one `prune --yes worktrees`. A kept worktree must come
// through byte for byte; a removable one shows that the rule does not keep everything.
import { chmod, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CleanupSurvey } from '../../../service/cleanup/doctor.js';
import type { PruneReport } from '../../../service/cleanup/doctor-report.js';
import {
  doctorIn,
  edit,
  freshRepo,
  pruneIn,
  type Repo,
  refSha,
  removeScenarios,
  snapshotTree,
  writeFiles,
} from '../../helpers/git-scenarios.js';
import { tempDir } from '../../helpers/tree.js';

let repo: Repo;
let survey: CleanupSurvey;
let pruned: PruneReport;
const paths: Record<string, string> = {};
const snapshots: Record<string, Record<string, string>> = {};
const tips: Record<string, string | null> = {};
let stash = '';
const KEPT = [
  'assumed',
  'skipped',
  'ignorestat',
  'sparsedirty',
  'linkhidden',
  'splitindex',
  'v4index',
  'filemode',
  'showuntracked',
  'intent',
  'unmerged',
  'submodule',
  'subdirty',
  'subdeinit',
  'nested',
  'outer',
  'worktreeref',
];

beforeAll(async () => {
  repo = await freshRepo();
  const git = (path: string, ...args: string[]) => repo.git(args, path);
  const add = async (name: string, options: Parameters<Repo['worktree']>[1] = {}) => {
    paths[name] = await repo.worktree(name, options);
    return paths[name] as string;
  };
  // Per-worktree settings, so one case's config does not leak into the others.
  await repo.git(['config', 'extensions.worktreeConfig', 'true']);

  // Hand-set bits over an edit: status says nothing.
  const assumed = await add('assumed');
  await writeFiles(assumed, { 'a.txt': edit('a', 3, 'hidden') });
  await git(assumed, 'update-index', '--assume-unchanged', 'a.txt');
  const skipped = await add('skipped');
  await git(skipped, 'update-index', '--skip-worktree', 'b.txt');
  await writeFiles(skipped, { 'b.txt': edit('b', 5, 'hidden too') });

  // core.ignoreStat marks every file Git writes as assume-unchanged.
  const ignorestat = await add('ignorestat');
  await git(ignorestat, 'config', '--worktree', 'core.ignoreStat', 'true');
  await writeFiles(ignorestat, { 'c.txt': null });
  await git(ignorestat, 'checkout', '--', 'c.txt');
  await writeFiles(ignorestat, { 'c.txt': edit('c', 1, 'unseen') });

  // A sparse checkout leaves files out (no loss); one put back with new content is an edit.
  for (const name of ['sparse', 'sparsedirty']) {
    const path = await add(name);
    await git(path, 'sparse-checkout', 'set', '--no-cone', '/a.txt', '/.gitignore');
  }
  await git(
    paths.sparsedirty as string,
    'config',
    '--worktree',
    'sparse.expectFilesOutsideOfPatterns',
    'true',
  );
  await writeFiles(paths.sparsedirty as string, { 'b.txt': 'written outside the sparse patterns\n' });

  // Flags on untouched files lose nothing.
  const flaggedclean = await add('flaggedclean');
  await git(flaggedclean, 'update-index', '--assume-unchanged', 'a.txt');
  await git(flaggedclean, 'update-index', '--skip-worktree', 'b.txt');
  await writeFiles(flaggedclean, { 'b.txt': null });

  // A tracked symlink pointed elsewhere behind the bit.
  await repo.on(
    'linkhidden',
    async () => {
      await symlink('a.txt', join(repo.main, 'link.txt'));
      await repo.commit({}, 'a symlink');
      await repo.push('linkhidden');
    },
    'main',
  );
  const linkhidden = await add('linkhidden');
  await git(linkhidden, 'update-index', '--assume-unchanged', 'link.txt');
  await writeFiles(linkhidden, { 'link.txt': null });
  await symlink('b.txt', join(linkhidden, 'link.txt'));

  // Index layouts this parser must read, or hand to git ls-files: a split index, version 4.
  const splitindex = await add('splitindex');
  await git(splitindex, 'update-index', '--split-index');
  await writeFiles(splitindex, { 'a.txt': edit('a', 9, 'split') });
  await git(splitindex, 'update-index', '--assume-unchanged', 'a.txt');
  const v4index = await add('v4index');
  await git(v4index, 'update-index', '--index-version', '4');
  await writeFiles(v4index, { 'c.txt': edit('c', 2, 'four') });
  await git(v4index, 'update-index', '--assume-unchanged', 'c.txt');

  // Bytes that differ from the blob only by Git's eol filter are the same content.
  const crlf = await add('crlf');
  await git(crlf, 'config', '--worktree', 'core.autocrlf', 'true');
  await writeFiles(crlf, { 'a.txt': edit('a', 1, 'a1').replaceAll('\n', '\r\n') });
  await git(crlf, 'update-index', '--assume-unchanged', 'a.txt');

  // Settings that would make status itself hide a change.
  const filemode = await add('filemode');
  await git(filemode, 'config', '--worktree', 'core.fileMode', 'false');
  await chmod(join(filemode, 'a.txt'), 0o755);
  const showuntracked = await add('showuntracked');
  await git(showuntracked, 'config', '--worktree', 'status.showUntrackedFiles', 'no');
  await writeFiles(showuntracked, { 'notes/todo.txt': 'mine\n' });

  // Intent-to-add and an unmerged entry with no operation in progress (a conflicting stash pop).
  const intent = await add('intent');
  await writeFiles(intent, { 'new.txt': 'planned\n' });
  await git(intent, 'add', '-N', 'new.txt');
  const unmerged = await add('unmerged');
  await writeFiles(unmerged, { 'a.txt': edit('a', 4, 'stashed') });
  await git(unmerged, 'stash', '-q');
  await writeFiles(unmerged, { 'a.txt': edit('a', 4, 'conflicting') });
  await git(unmerged, 'commit', '-q', '-am', 'conflicting');
  await repo.push('unmerged');
  await git(unmerged, 'stash', 'pop', '-q').catch(() => {});

  // Checked-out submodules: one clean, one with new content its settings hide from status.
  const library = await tempDir('dogsled-submodule-');
  await repo.git(['init', '-q', '-b', 'main', library], repo.root);
  await repo.commit({ 'lib.txt': 'library\n' }, 'library', library);
  await repo.on(
    'submodule',
    async () => {
      await repo.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib']);
      await repo.commit({}, 'add a submodule');
      await repo.push('submodule');
    },
    'main',
  );
  for (const name of ['submodule', 'subdirty', 'subdeinit']) {
    const path = await add(name, { base: 'submodule', detach: name === 'subdirty' });
    await git(path, '-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init');
  }
  await git(paths.subdirty as string, 'config', '--worktree', 'diff.ignoreSubmodules', 'all');
  await git(paths.subdirty as string, 'config', '--worktree', 'submodule.lib.ignore', 'all');
  await writeFiles(paths.subdirty as string, { 'lib/scratch.txt': 'inside the submodule\n' });
  await git(paths.subdeinit as string, 'submodule', 'deinit', '-q', 'lib');

  // A repository in an ignored directory, with a commit of its own.
  const nested = await add('nested');
  const inner = join(nested, 'ignored', 'lib');
  await mkdir(inner, { recursive: true });
  await repo.git(['init', '-q', '-b', 'main'], inner);
  await repo.commit({ 'only-here.txt': 'unique\n' }, 'only here', inner);
  // A worktree nested in another's ignored .worktrees directory, with an edit.
  const outer = await add('outer');
  paths.inner = join(outer, '.worktrees', 'inner');
  await repo.git(['worktree', 'add', '-q', '-b', 'inner', paths.inner, 'main']);
  await writeFiles(paths.inner, { 'a.txt': edit('a', 7, 'inner edit') });

  // A ref that lives in the worktree's own git dir, pointing at a commit nothing else has.
  const worktreeref = await add('worktreeref');
  const lone = await repo.commit({ 'lone.txt': 'x\n' }, 'lone', worktreeref);
  await git(worktreeref, 'update-ref', 'refs/worktree/keep', lone);
  await git(worktreeref, 'reset', '-q', '--hard', 'HEAD~1');

  // Stashes and reflogs: repository-wide, or history the checkout moved away from.
  const stashed = await add('stashed');
  await writeFiles(stashed, { 'a.txt': edit('a', 2, 'stashed away') });
  await git(stashed, 'stash', '-q');
  stash = await repo.sha('refs/stash');
  const amended = await add('amended');
  await repo.commit({ 'draft.txt': 'first\n' }, 'draft', amended);
  await writeFiles(amended, { 'draft.txt': 'second\n' });
  await git(amended, 'commit', '-q', '-a', '--amend', '-m', 'final');
  await repo.push('amended');

  for (const name of [...KEPT, 'inner']) {
    snapshots[name] = await snapshotTree(paths[name] as string);
    tips[name] = await refSha(repo, `refs/heads/${name}`);
  }
  survey = await doctorIn(repo);
  pruned = (await pruneIn(repo, ['worktrees'])).report;
}, 240_000);

afterAll(removeScenarios);

function entry(name: string) {
  const found = survey.report.worktrees.find((worktree) => worktree.path === paths[name]);
  if (!found) throw new Error(`no worktree entry ${name}`);
  return found;
}

async function expectKept(name: string) {
  const found = entry(name);
  expect(found.removable, found.reason).toBe(false);
  expect(pruned.results.map((result) => result.path)).not.toContain(paths[name]);
  expect(await snapshotTree(paths[name] as string)).toEqual(snapshots[name]);
  expect(await refSha(repo, `refs/heads/${name}`)).toBe(tips[name]);
  return found;
}

async function expectRemoved(name: string) {
  const found = entry(name);
  expect(found.removable, found.reason).toBe(true);
  expect(pruned.results).toContainEqual(expect.objectContaining({ kind: 'worktree', path: paths[name] }));
  await expect(snapshotTree(paths[name] as string)).rejects.toThrow(/ENOENT/);
  return found;
}

describe('edits git status does not print', () => {
  it('prune neither failed nor skipped: every kept checkout was kept by the plan', () => {
    expect(pruned.failures).toEqual([]);
    expect(pruned.skipped).toEqual([]);
  });

  it('an assume-unchanged edit keeps the checkout and is named in the reason', async () => {
    const found = await expectKept('assumed');
    expect(found.state).toBe('landed_dirty');
    expect(found.reason).toBe(
      'landed but dirty: 1 changed path (a.txt [assume-unchanged, hidden from git status])',
    );
    expect(survey.report.landed_dirty).toContainEqual(
      expect.objectContaining({ checkout: paths.assumed, dirty: 1, paths: ['a.txt'] }),
    );
  });

  it('a skip-worktree edit keeps the checkout', async () => {
    expect((await expectKept('skipped')).reason).toContain('b.txt [skip-worktree, hidden from git status]');
  });

  it('core.ignoreStat hides every later edit: the bits it sets are read like hand-set ones', async () => {
    expect(await repo.git(['ls-files', '-v', 'c.txt'], paths.ignorestat)).toBe('h c.txt\n');
    expect((await expectKept('ignorestat')).reason).toContain('c.txt [assume-unchanged');
  });

  it('a sparse checkout: absent files lose nothing, a file written outside the patterns is kept', async () => {
    await expectRemoved('sparse');
    expect((await expectKept('sparsedirty')).reason).toContain('b.txt');
  });

  it('flags on unchanged or absent files do not keep a checkout', async () => {
    await expectRemoved('flaggedclean');
  });

  it('a tracked symlink pointed elsewhere behind the bit is an edit', async () => {
    expect((await expectKept('linkhidden')).reason).toContain('link.txt [assume-unchanged');
  });

  it('a split index (read through git ls-files) and an index of version 4 hide nothing', async () => {
    expect((await expectKept('splitindex')).reason).toContain('a.txt [assume-unchanged');
    expect((await expectKept('v4index')).reason).toContain('c.txt [assume-unchanged');
  });

  it("bytes that differ from the blob only by the path's eol filter are the same content", async () => {
    await expectRemoved('crlf');
  });
});

describe('settings that would hide a change from status', () => {
  it('an executable bit changed under core.fileMode=false is tracked content', async () => {
    expect((await expectKept('filemode')).reason).toBe('landed but dirty: 1 changed path (a.txt)');
  });

  it('status.showUntrackedFiles=no does not hide an untracked file', async () => {
    expect((await expectKept('showuntracked')).reason).toContain('notes/todo.txt');
  });

  it('an intent-to-add path and an unmerged entry are changes', async () => {
    expect((await expectKept('intent')).reason).toContain('new.txt');
    expect((await expectKept('unmerged')).reason).toContain('a.txt');
  });
});

describe("other checkouts' content inside a checkout", () => {
  it('a checked-out submodule keeps it: git worktree remove would refuse it', async () => {
    expect((await expectKept('submodule')).reason).toBe(
      'it has submodules (lib); git worktree remove refuses that',
    );
  });

  it("a submodule deinit'ed but still in the worktree's git dir keeps it too", async () => {
    const gitDir = (await repo.git(['rev-parse', '--absolute-git-dir'], paths.subdeinit)).trim();
    expect((await expectKept('subdeinit')).reason).toBe(
      `it has submodules (${gitDir}/modules); git worktree remove refuses that`,
    );
  });

  it('new content in a submodule is a change, whatever diff.ignoreSubmodules says', async () => {
    expect((await expectKept('subdirty')).reason).toBe('dirty: 1 changed path (lib)');
  });

  it('a repository in an ignored directory keeps it, with the commit only it has', async () => {
    expect((await expectKept('nested')).reason).toBe(
      'another repository is inside it (ignored/lib); removal would delete it',
    );
  });

  it('a worktree nested in an ignored directory keeps the outer one, and keeps itself', async () => {
    expect((await expectKept('outer')).reason).toBe(
      'another repository is inside it (.worktrees/inner); removal would delete it',
    );
    expect(await snapshotTree(paths.inner as string)).toEqual(snapshots.inner);
  });

  it("a ref in the worktree's own git dir keeps it", async () => {
    expect((await expectKept('worktreeref')).reason).toBe(
      'it has refs of its own (refs/worktree/keep); removal would delete them',
    );
  });
});

describe('what is not checkout content', () => {
  it('a stash is a repository-wide ref: the worktree goes, the stash stays', async () => {
    await expectRemoved('stashed');
    expect(await repo.sha('refs/stash')).toBe(stash);
    expect(await repo.git(['show', '--format=', '--stat', 'refs/stash'])).toContain('a.txt');
  });

  it('a commit replaced by --amend (only in reflogs) does not keep the worktree', async () => {
    await expectRemoved('amended');
  });
});

describe('the agent pane reads the same changes', () => {
  it('every checkout the rule keeps for its own changes is dirty for the pane', async () => {
    const { readDirty } = await import('../../../service/git/checkout-facts.js');
    for (const name of [
      'assumed',
      'skipped',
      'ignorestat',
      'linkhidden',
      'splitindex',
      'v4index',
      'filemode',
    ]) {
      expect(await readDirty(paths[name] as string, { env: process.env }), name).toBe(true);
    }
  });
});
