// The words doctor and prune print for people: each entry named once and plainly (a stale record
// by its branch, never "(detached )"), each fact said once (never "already removed; already removed").
import { describe, expect, it } from 'vitest';
import { paint } from '../../../cli/render/color.js';
import { renderDoctor } from '../../../cli/render/doctor-human.js';
import { renderFailure, renderResult, renderSkip } from '../../../cli/render/prune-human.js';
import type { DoctorReport, PruneResult, WorktreeEntry } from '../../../service/cleanup/doctor-report.js';

const plain = paint(false);

function worktree(over: Partial<WorktreeEntry>): WorktreeEntry {
  return {
    repository: '/r',
    path: '/r/.worktrees/x',
    branch: null,
    head: null,
    state: 'stale',
    removable: true,
    reason: 'stale registration: the path is gone (only the record is removed)',
    holds: [],
    proof: null,
    registered: true,
    locked: null,
    ...over,
  };
}

function doctor(worktrees: WorktreeEntry[]): string[] {
  const report: DoctorReport = {
    version: 1,
    host: 'local',
    now_ms: 0,
    repositories: [],
    worktrees,
    branches: [],
    workspaces: null,
    panes: null,
    landed_dirty: [],
    unlinked: [],
    jobs: [],
    targets: [],
    disk: null,
    processes: { hot: [], error: null },
    warnings: [],
  };
  return renderDoctor(report, plain);
}

const result = (over: Partial<PruneResult>): PruneResult => ({
  kind: 'worktree',
  path: '/r/.worktrees/x',
  branch: 'x',
  branch_deleted: false,
  panes: [],
  already_removed: false,
  detail: '',
  ...over,
});

describe('doctor names each worktree once and plainly', () => {
  it('by its branch, its detached HEAD, or neither when nothing is known', () => {
    const lines = doctor([
      worktree({ branch: 'feat', path: '/r/.worktrees/a' }),
      worktree({ head: '0123456789abcdef', path: '/r/.worktrees/b' }),
      worktree({ path: '/r/.worktrees/c' }),
    ]);
    expect(lines).toContain('  forget  .worktrees/a (feat)');
    expect(lines).toContain('  forget  .worktrees/b (detached 0123456789)');
    expect(lines).toContain('  forget  .worktrees/c');
    expect(lines.join('\n')).not.toContain('detached )');
  });
});

describe('names from the filesystem', () => {
  it('lose their terminal escapes in doctor and prune, paths in reasons included', () => {
    const name = '/r/.worktrees/\x1b]0;owned\x07x';
    const lines = doctor([
      worktree({
        path: name,
        branch: 'b\x1b[2J',
        state: 'kept',
        removable: false,
        reason: 'another repository is inside it (ignored/\x1b[31mred); removal would delete it',
      }),
    ]);
    expect(lines.join('\n')).not.toContain('\x1b');
    expect(lines).toContain(
      '          another repository is inside it (ignored/red); removal would delete it',
    );
    expect(renderResult(result({ path: name }), plain)).toBe('removed worktree /r/.worktrees/x');
  });
});

describe('prune says each fact once', () => {
  it('a worktree something else removed: already removed, then what was dropped', () => {
    expect(renderResult(result({ already_removed: true, detail: 'registration dropped' }), plain)).toBe(
      'removed worktree /r/.worktrees/x (already removed; registration dropped)',
    );
  });

  it('records and build output are named in words, not by their plan kind', () => {
    const record = { kind: 'worktree-record' as const, path: '/r/.worktrees/y', branch: null };
    expect(renderResult(result({ ...record, detail: 'registration removed' }), plain)).toBe(
      'removed worktree record /r/.worktrees/y',
    );
    expect(renderSkip({ ...record, reason: 'the path exists again' }, plain)).toBe(
      'skipped: worktree record /r/.worktrees/y: the path exists again',
    );
    expect(
      renderFailure({ kind: 'repository-record', path: '/gone', branch: null, error: 'locked' }, plain),
    ).toBe('failed: repository record /gone: locked');
    expect(renderResult(result({ kind: 'target', path: '/r/target', branch: null }), plain)).toBe(
      'removed build output /r/target',
    );
  });

  it('a branch a new commit kept is said by its skip line, not again by the removal', () => {
    const skip = { kind: 'branch' as const, path: '/r', branch: 'x', reason: 'a new commit moved it' };
    const removed = result({ detail: 'branch x kept: a new commit moved it' });
    expect(renderResult(removed, plain, skip)).toBe('removed worktree /r/.worktrees/x');
    expect(renderSkip(skip, plain)).toBe('skipped: branch x in /r: a new commit moved it');
    expect(renderResult(removed, plain)).toBe(
      'removed worktree /r/.worktrees/x (branch x kept: a new commit moved it)',
    );
  });
});
