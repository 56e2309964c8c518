import { describe, expect, it } from 'vitest';
import { chooseTabPlacement, type TabPlacementFacts } from '../../../service/core/jobs/tab-placement.js';

const base: TabPlacementFacts = {
  cwd: '/home/me/src/app',
  checkout: '/home/me/src/app',
  mainCheckout: '/home/me/src/app',
  repositoryName: 'app',
  workspaces: ['w1', 'w2', 'w3'],
  shows: [],
  callerWorkspace: 'w1',
  activeWorkspace: 'w2',
};

describe('tab placement in a repository', () => {
  it("opens a tab in the workspace of the job's own checkout first", () => {
    const facts = {
      ...base,
      cwd: '/home/me/wt/feat/src',
      checkout: '/home/me/wt/feat',
      shows: [
        { workspace: 'w2', checkout: '/home/me/src/app' },
        { workspace: 'w3', checkout: '/home/me/wt/feat' },
      ],
    };
    expect(chooseTabPlacement(facts)).toEqual({
      kind: 'tab',
      workspace: 'w3',
      why: "the checkout's workspace",
    });
  });

  it("falls back to the main checkout's workspace when no workspace shows the worktree", () => {
    const facts = {
      ...base,
      checkout: '/home/me/wt/feat',
      shows: [{ workspace: 'w2', checkout: '/home/me/src/app' }],
    };
    expect(chooseTabPlacement(facts)).toEqual({
      kind: 'tab',
      workspace: 'w2',
      why: "the main checkout's workspace",
    });
  });

  it('opens a new workspace named for the repository when no workspace shows it, ignoring the caller', () => {
    const facts = { ...base, checkout: '/home/me/wt/feat', shows: [{ workspace: 'w1', checkout: '/other' }] };
    expect(chooseTabPlacement(facts)).toEqual({
      kind: 'workspace',
      label: 'app',
      shows: base.mainCheckout,
      why: 'new workspace for the repository',
    });
  });

  it('names a new workspace after the checkout when the main checkout is unknown', () => {
    const facts = { ...base, checkout: '/srv/bare-wt', mainCheckout: null, repositoryName: null };
    expect(chooseTabPlacement(facts)).toMatchObject({
      kind: 'workspace',
      label: 'bare-wt',
      shows: '/srv/bare-wt',
    });
  });
});

describe('tab placement outside any repository', () => {
  const outside = { ...base, cwd: '/tmp/scratch', checkout: null, mainCheckout: null, repositoryName: null };

  it("opens a tab in the caller's workspace", () => {
    expect(chooseTabPlacement(outside)).toEqual({
      kind: 'tab',
      workspace: 'w1',
      why: "the caller's workspace",
    });
  });

  it("uses the active workspace when the caller's workspace is gone or unknown", () => {
    expect(chooseTabPlacement({ ...outside, callerWorkspace: 'w9' })).toEqual({
      kind: 'tab',
      workspace: 'w2',
      why: 'active workspace',
    });
    expect(chooseTabPlacement({ ...outside, callerWorkspace: null, activeWorkspace: null })).toEqual({
      kind: 'active-tab',
      why: 'active workspace',
    });
  });

  it('opens a workspace when Herdr has none', () => {
    const none = { ...outside, workspaces: [], callerWorkspace: null, activeWorkspace: null };
    expect(chooseTabPlacement(none)).toEqual({
      kind: 'workspace',
      label: 'scratch',
      shows: null,
      why: 'no workspace exists',
    });
  });
});
