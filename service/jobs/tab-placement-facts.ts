// Gathers what the tab placement rule (core/tab-placement.ts) needs from Herdr and Git: one session
// listing, the checkout containing the job's directory and its repository's main checkout. Also
// finds the caller's workspace, which a queued ticket keeps so its later tab opens there.

import { realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { chooseTabPlacement, type ShownCheckout, type TabPlacement } from '../core/jobs/tab-placement.js';
import { findCheckoutRoot } from '../git/checkout-facts.js';
import { repositoryAt } from '../git/repository.js';
import type { GitIO } from '../git/run-git.js';
import type { TerminalPort } from '../terminal/port.js';
import { TerminalError } from '../terminal/terminal-errors.js';

/** Where the job's tab goes, judged from Herdr's current session. */
export async function placeJobTab(
  port: TerminalPort,
  cwd: string,
  callerWorkspace: string | null,
  git: GitIO,
): Promise<TabPlacement> {
  const { signal } = git;
  const [listing, repository] = await Promise.all([
    port.listAll(signal ? { signal } : {}),
    repositoryOf(cwd, git),
  ]);
  const shows: ShownCheckout[] = [];
  for (const workspace of listing.workspaces) {
    if (workspace.worktree === undefined) continue;
    shows.push({
      workspace: workspace.workspace_id,
      checkout: await realOrSame(workspace.worktree.checkout_path),
    });
  }
  return chooseTabPlacement({
    cwd,
    checkout: repository.checkout,
    mainCheckout: repository.main,
    repositoryName: repository.main === null ? null : basename(repository.main),
    workspaces: listing.workspaces.map((workspace) => workspace.workspace_id),
    shows,
    callerWorkspace,
    activeWorkspace: listing.focused_workspace_id ?? null,
  });
}

/**
 * The workspace of the caller's pane (HERDR_PANE_ID), or null when it is not in Herdr's session.
 * HERDR_PANE_ID may be an older alias that the listing no longer shows: Herdr resolves it.
 */
export async function callerWorkspaceOf(
  port: TerminalPort,
  callerPane: string | null,
): Promise<string | null> {
  if (callerPane === null || port.kind === 'headless') return null;
  const listed = (await port.listAll()).panes.find((pane) => pane.pane_id === callerPane);
  if (listed) return listed.workspace_id;
  try {
    return (await port.currentPane(callerPane)).workspace_id;
  } catch (error) {
    if (error instanceof TerminalError) return null;
    throw error;
  }
}

interface RepositoryFacts {
  checkout: string | null;
  main: string | null;
}

/** The checkout of `cwd` and its main checkout; a repository Git cannot read counts as its own main. */
async function repositoryOf(cwd: string, git: GitIO): Promise<RepositoryFacts> {
  const root = await findCheckoutRoot(cwd);
  if (root === null) return { checkout: null, main: null };
  const checkout = await realOrSame(root);
  try {
    const identity = await repositoryAt(checkout, git);
    return { checkout, main: identity.main === null ? null : await realOrSame(identity.main) };
  } catch (error) {
    if (!(error instanceof DogsledError)) throw error;
    return { checkout, main: checkout };
  }
}

async function realOrSame(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}
