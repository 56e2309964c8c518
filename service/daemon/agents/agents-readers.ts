// The agent lane with its real readers: Herdr through the terminal port, transcripts from each
// harness's session files, and checkout facts from git, with whether the branch landed decided by
// the loss rule (without a fetch; remote-tracking refs are as fresh as the last cleanup pass).

import { availableParallelism } from 'node:os';
import { inDefaultBranch } from '../../core/cleanup/loss-types.js';
import { WATCH_MAX_GAP_MS } from '../../core/cleanup/pane-watch-carry.js';
import type { CheckoutFacts } from '../../git/checkout-facts.js';
import { CheckoutCache } from '../../probe/checkout-cache.js';
import type { ProcessIO } from '../../state/io.js';
import { readPaneWatch, watchEntries, writePaneWatch } from '../../state/records/pane-watch-file.js';
import { AgentLane } from './agents-worker.js';

/** Working-file edits change nothing git records, so dirtiness is re-read at least this often. */
const CHECKOUT_REFRESH_MS = 30_000;
/** Everything about a checkout is read again at least this often, whatever its fingerprint says. */
const CHECKOUT_REREAD_MS = 5 * 60_000;
/** pane-watch.json is rewritten at least this often, well inside the watch's freshness gap. */
const WATCH_REFRESH_MS = 60_000;

export interface RealLaneIO extends ProcessIO {
  intervalMs: number;
  stallAfterMs: number;
  budgetMs: number;
}

/** The lane with its real readers: Herdr through the terminal port, transcripts, git checkouts. */
export async function realAgentLane(options: RealLaneIO): Promise<AgentLane> {
  const [{ openTerminal }, { herdrExpected }, transcripts, git, survey] = await Promise.all([
    import('../../terminal/open.js'),
    import('../../terminal/herdr/herdr-env.js'),
    import('../../probe/transcripts/index.js'),
    import('../../git/checkout-facts.js'),
    import('../../cleanup/survey.js'),
  ]);
  const { env, home } = options;
  // A watch older than a few missed ticks no longer proves a shell sat idle all that time.
  const maxGapMs = Math.max(WATCH_MAX_GAP_MS, 3 * options.intervalMs);
  let savedShape = '';
  let savedMs = 0;
  const cache = transcripts.transcriptCache();
  const checkouts = new CheckoutCache({
    fingerprint: git.checkoutFingerprint,
    read: async (root) => {
      const facts = await git.readCheckoutFacts(root, { env });
      return {
        branch: facts.branch,
        ahead: facts.ahead,
        dirty: facts.dirty,
        landed: await landedOf(root, facts, env, survey.surveyRepository),
      };
    },
    refresh: async (root, previous) => ({ ...previous, dirty: await git.readDirty(root, { env }) }),
    now: options.now,
    refreshAfterMs: CHECKOUT_REFRESH_MS,
    rereadAfterMs: CHECKOUT_REREAD_MS,
  });
  const warned = new Set<string>();
  const warnOnce = (line: string) => {
    if (warned.has(line)) return;
    warned.add(line);
    options.warn(line);
  };
  return new AgentLane({
    openTerminal: () => openTerminal({ env, home, commandName: 'serve', warn: warnOnce }),
    herdrExpected: () => herdrExpected(env, home),
    readers: {
      width: availableParallelism(),
      transcript: async (pane) => {
        const found = await transcripts.discoverTranscriptFile(
          { agent: pane.agent, session: pane.session, home },
          { cache, now: options.now },
        );
        return found.path === null ? null : found;
      },
      // The stat discovery just took: a quiet transcript costs that one stat a tick, no open, no read.
      transcriptFacts: (path, agent, file) =>
        transcripts.readTranscriptFacts(path, agent, file ? { cache, file } : { cache }),
      checkoutRoot: (cwd) => git.findCheckoutRoot(cwd),
      checkout: (root, activityMs) => checkouts.get(root, activityMs),
    },
    stallAfterMs: options.stallAfterMs,
    now: options.now,
    budgetMs: options.budgetMs,
    shellWatch: {
      maxGapMs,
      load: async () => watchEntries(await readPaneWatch(options)),
      save: async (watch) => {
        // Only clock changes are news; the observation time alone is refreshed once a minute.
        const shape = JSON.stringify(
          Object.entries(watch).map(([id, e]) => [id, e.pane, e.empty_since_ms, e.idle_since_ms]),
        );
        if (shape === savedShape && options.now() - savedMs < WATCH_REFRESH_MS) return;
        await writePaneWatch(options.paths, watch, maxGapMs);
        savedShape = shape;
        savedMs = options.now();
      },
    },
  });
}

/**
 * Whether a pane's branch landed in the default branch, by the same rule cleanup uses: an
 * ancestor of it, or applied by merge, squash or cherry-pick. Null when the question has no
 * answer: a detached HEAD, the default branch itself, no default branch, or a main checkout on
 * another branch (the rule judges linked worktrees).
 */
async function landedOf(
  root: string,
  facts: CheckoutFacts,
  env: NodeJS.ProcessEnv,
  surveyRepository: typeof import('../../cleanup/survey.js').surveyRepository,
): Promise<boolean | null> {
  if (facts.branch === null || facts.branch === facts.defaultBranch || facts.ahead === null) return null;
  if (facts.ahead === 0) return true;
  const survey = await surveyRepository(root, {
    fetch: 'skip',
    callerCwd: null,
    registered: [],
    only: { worktree: root },
    content: false,
    env,
  });
  const commits = survey.worktrees[0]?.facts.commits;
  if (!commits) return null;
  return commits.landed && inDefaultBranch(commits.proof);
}
