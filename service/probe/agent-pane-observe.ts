// Observes the agent panes Herdr reports: each pane's transcript (discovered, never guessed), the
// session's model and latest activity, and its checkout's branch facts. A checkout shared by several
// panes is read once per tick, and reads run on at most `width` workers. One pane's failed read
// leaves that pane's facts null and never fails the tick.

import type { ObservedAgentPane } from '../core/agents/agent-pane-clocks.js';
import { messageOf } from '../core/common/errors.js';
import { mapLimited } from './map-limited.js';
import type { FileFacts, TranscriptFacts } from './transcripts/index.js';

/** An agent pane as the terminal reports it, before any file or git is read. */
export interface LiveAgentPane {
  pane: string;
  terminal_id: string;
  agent: string;
  state: string;
  name: string | null;
  completion_seq: number;
  cwd: string | null;
  session: { kind: string; value: string } | null;
}

export interface CheckoutFacts {
  branch: string | null;
  ahead: number | null;
  dirty: boolean | null;
  landed: boolean | null;
}

export type { TranscriptFacts };

/** A pane's transcript; `file`, when given, is the stat it was found by (passed on to the facts read). */
export interface FoundTranscript {
  path: string;
  modified_ms: number;
  file?: FileFacts;
}

export interface AgentPaneReaders {
  /** The pane's transcript, or null when it is absent, ambiguous or unreadable. */
  transcript: (pane: LiveAgentPane) => Promise<FoundTranscript | null>;
  transcriptFacts: (path: string, agent: string, file?: FileFacts) => Promise<TranscriptFacts>;
  /** The top level of the checkout that contains `cwd`, or null outside a repository. */
  checkoutRoot: (cwd: string) => Promise<string | null>;
  /**
   * The checkout's facts; `activityMs` is the latest transcript change of the agents working in it
   * (null when any of them has no transcript), so a quiet checkout need not be read again.
   */
  checkout: (root: string, activityMs: number | null) => Promise<CheckoutFacts>;
  /** Parallel reads allowed: one per available CPU. */
  width: number;
}

const NO_CHECKOUT: CheckoutFacts = { branch: null, ahead: null, dirty: null, landed: null };
const NO_FACTS: TranscriptFacts = { model: null, activity: null };

export async function observeAgentPanes(
  live: readonly LiveAgentPane[],
  readers: AgentPaneReaders,
): Promise<{ panes: ObservedAgentPane[]; errors: string[] }> {
  const errors = new Set<string>();
  const guard = async <T>(what: string, fallback: T, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      errors.add(`${what}: ${messageOf(error)}`);
      return fallback;
    }
  };

  const transcripts = await mapLimited(live, readers.width, async (pane) => {
    const found = await guard(`transcript of ${pane.pane}`, null, () => readers.transcript(pane));
    const facts = found
      ? await guard(`transcript ${found.path}`, NO_FACTS, () =>
          readers.transcriptFacts(found.path, pane.agent, found.file),
        )
      : NO_FACTS;
    return { found, facts };
  });

  const cwds = [...new Set(live.flatMap((pane) => (pane.cwd ? [pane.cwd] : [])))];
  const roots = await mapLimited(cwds, readers.width, (cwd) =>
    guard(`checkout ${cwd}`, null, () => readers.checkoutRoot(cwd)),
  );
  const rootOf = new Map(cwds.map((cwd, i) => [cwd, roots[i] ?? null]));
  // The latest transcript change of the agents in each checkout: no change, no new edits to look for.
  const activity = new Map<string, number | null>();
  live.forEach((pane, i) => {
    const root = pane.cwd ? rootOf.get(pane.cwd) : null;
    if (!root) return;
    const modified = transcripts[i]?.found?.modified_ms ?? null;
    const known = activity.get(root);
    activity.set(root, known === null || modified === null ? null : Math.max(known ?? 0, modified));
  });
  const uniqueRoots = [...activity.keys()];
  const checkouts = await mapLimited(uniqueRoots, readers.width, (root) =>
    guard(`checkout ${root}`, NO_CHECKOUT, () => readers.checkout(root, activity.get(root) ?? null)),
  );
  const checkoutOf = new Map(uniqueRoots.map((root, i) => [root, checkouts[i] ?? NO_CHECKOUT]));

  const panes = live.map((pane, i): ObservedAgentPane => {
    const { found, facts } = transcripts[i] ?? { found: null, facts: NO_FACTS };
    const root = pane.cwd ? rootOf.get(pane.cwd) : null;
    const checkout = root ? (checkoutOf.get(root) ?? NO_CHECKOUT) : NO_CHECKOUT;
    return {
      pane: pane.pane,
      agent: pane.agent,
      state: pane.state,
      name: pane.name,
      transcript: found?.path ?? null,
      transcript_modified: found?.modified_ms ?? null,
      terminal_id: pane.terminal_id,
      completion_seq: pane.completion_seq,
      cwd: pane.cwd,
      model: facts.model,
      activity: facts.activity,
      ...checkout,
    };
  });
  return { panes, errors: [...errors] };
}
