// A survey reads each linked worktree from its files (its identity, git dirs, operation markers and
// the stat proof, synchronously and once) and asks Git only on a doubt. Every hostile state here must
// come out exactly as the survey that asks `git status` of every checkout (the recheck's reading,
// `trustStat` off) says, and be kept unless it loses nothing.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CleanupSurvey } from '../../../service/cleanup/doctor.js';
import { type RepoSurvey, surveyRepository } from '../../../service/cleanup/survey.js';
import {
  doctorIn,
  edit,
  freshRepo,
  type Repo,
  removeScenarios,
  snapshotTree,
  writeFiles,
} from '../../helpers/git-scenarios.js';

let repo: Repo;
let doctor: CleanupSurvey;
let proven: RepoSurvey;
let asked: RepoSurvey;
const paths: Record<string, string> = {};
const before: Record<string, Record<string, string>> = {};

/** A worktree on its own branch, clean, whose one commit main has taken by squash. */
async function landed(name: string, dir = name): Promise<string> {
  const path = join(repo.main, '.worktrees', dir);
  await repo.git(['worktree', 'add', '-q', '-b', name, path, 'main']);
  await repo.commit({ [`${name}.txt`]: `${name}\n` }, `work on ${name}`, path);
  await repo.squash(name);
  paths[name] = path;
  return path;
}

async function adminDir(path: string): Promise<string> {
  return (await repo.git(['rev-parse', '--absolute-git-dir'], path)).trim();
}

beforeAll(async () => {
  repo = await freshRepo();
  await landed('clean');
  // Mid-merge and mid-rebase by their markers alone: the files still prove the checkout clean,
  // so only the markers (read from the proof's own git dir) can keep it.
  await writeFile(join(await adminDir(await landed('merging')), 'MERGE_HEAD'), `${'0'.repeat(40)}\n`);
  await mkdir(join(await adminDir(await landed('rebasing')), 'rebase-merge'));
  // A rebase that stopped on a conflict: HEAD detached, the branch held, the index unmerged.
  const conflicted = await landed('conflicted');
  await repo.commit({ 'a.txt': edit('a', 3, 'theirs') }, 'main moves a.txt');
  await repo.commit({ 'a.txt': edit('a', 3, 'mine') }, 'mine', conflicted);
  await repo.git(['rebase', 'main'], conflicted).catch(() => undefined);
  await repo.push('main');
  // Locked by another tool.
  await repo.git(['worktree', 'lock', '--reason', 'ci job 7', await landed('locked')]);
  // A .git file that points nowhere: neither the files nor Git can say whose checkout it is.
  await writeFile(join(await landed('nowhere'), '.git'), 'gitdir: /nonexistent/dogsled/admin\n');
  const fifoDir = await adminDir(await landed('fifomarker'));
  // An untracked FIFO in the checkout: no bytes, and Git lists none.
  execFileSync('mkfifo', [join(await landed('fifofile'), 'pipe')]);
  // A huge untracked tree: 40 directories of 50 files.
  const huge = await landed('huge');
  const files: Record<string, string> = {};
  for (let d = 0; d < 40; d++) for (let f = 0; f < 50; f++) files[`gen/d${d}/f${f}.txt`] = `${d}.${f}\n`;
  await writeFiles(huge, files);
  // Names with escapes: a directory named with an escape sequence and a tab, clean and landed; and
  // an untracked file so named in another.
  await landed('escdir', 'esc\u001b[31mred\tdir');
  await writeFiles(await landed('escfile'), { 'x\u001b]0;title\u0007.txt': 'mine\n' });

  // (snapshotTree would open the FIFO.)
  for (const [name, path] of Object.entries(paths)) {
    if (name !== 'fifofile') before[name] = await snapshotTree(path);
  }
  const options = { fetch: 'skip' as const, callerCwd: null, registered: [], env: process.env };
  asked = await surveyRepository(repo.main, { ...options, trustStat: false });
  // A FIFO where an operation marker goes: a stat sees it and nothing opens it. Made after the
  // survey that asks git status, which opens CHERRY_PICK_HEAD and would wait there to its deadline.
  execFileSync('mkfifo', [join(fifoDir, 'CHERRY_PICK_HEAD')]);
  doctor = await doctorIn(repo);
  proven = await surveyRepository(repo.main, { ...options, trustStat: true });
}, 180_000);

afterAll(removeScenarios);

function entry(name: string) {
  const found = doctor.report.worktrees.find((worktree) => worktree.path === paths[name]);
  if (!found) throw new Error(`no worktree entry ${name}`);
  return found;
}

describe('a survey that reads checkouts from their files', () => {
  it('says of every checkout what the survey asking git status of each says', () => {
    const facts = (survey: RepoSurvey) =>
      survey.worktrees
        .filter(({ facts }) => facts.path !== paths.fifomarker)
        .map(({ facts, verdict }) => ({ ...facts, verdict }));
    expect(facts(proven)).toEqual(facts(asked));
    expect(facts(proven).length).toBe(Object.keys(paths).length - 1);
  });

  it('removes the clean landed checkouts only, the one with escapes in its name included', () => {
    const removable = doctor.report.worktrees.filter((worktree) => worktree.removable).map((w) => w.path);
    // A FIFO holds no bytes and Git lists none: both readings find nothing to lose there.
    expect(removable.sort()).toEqual([paths.clean, paths.escdir, paths.fifofile].sort());
  });

  it('keeps a checkout mid-merge or mid-rebase by its marker, though its files are clean', () => {
    expect(entry('merging')).toMatchObject({ removable: false, reason: expect.stringMatching(/merge/) });
    expect(entry('rebasing')).toMatchObject({ removable: false, reason: expect.stringMatching(/rebase/) });
    expect(entry('conflicted')).toMatchObject({ removable: false });
    const branch = doctor.report.branches.find((b) => b.branch === 'conflicted');
    expect(branch?.removable).toBe(false);
  });

  it('keeps a marker it cannot open (a FIFO) as an operation, without blocking on it', () => {
    expect(entry('fifomarker')).toMatchObject({
      removable: false,
      reason: expect.stringMatching(/cherry-pick/),
    });
  });

  it("keeps another tool's locked checkout, and one whose .git points nowhere", () => {
    expect(entry('locked')).toMatchObject({ removable: false, locked: 'ci job 7' });
    const nowhere = entry('nowhere');
    expect(nowhere.removable).toBe(false);
    expect(nowhere.proof).toBeNull();
  });

  it('counts a huge untracked tree and a file named with escapes as unique content', () => {
    for (const name of ['huge', 'escfile']) {
      const found = entry(name);
      expect(found.removable, name).toBe(false);
      expect(doctor.report.landed_dirty.map((finding) => finding.checkout)).toContain(paths[name]);
    }
  });

  it('changes nothing on disk', async () => {
    for (const [name, path] of Object.entries(paths)) {
      if (name !== 'fifofile') expect(await snapshotTree(path), name).toEqual(before[name]);
    }
  });
});
