// Where `send NAME|PANE` without `--host` goes (spec, "Inbox": send resolves a name or pane on any
// host). A name (an item's, a tracked child's, a Herdr agent's) is looked up on every host, and
// found on exactly one it goes there; found on two or more it is refused, naming them all, because
// a record written to the wrong agent cannot be taken back. A pane id is a location on one host:
// this host's pane comes first, and only a pane unknown here is looked for on the peers. Pure: the
// candidates each host answered come in, the decision and its one-line refusal come out.

import { clip, plainLine } from '../text/clean.js';

/** Herdr's agent-name rule (CONTRACT §1.2): what a child or a tracked pane can be called. */
export const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** One agent or pane a host found for the target. */
export interface Candidate {
  pane: string;
  terminal: string;
  name: string | null;
}

/** What one host answered: its candidates, or why it could not look (unreachable, no Herdr…). */
export type HostAnswer =
  | { host: string; label: string; matches: readonly Candidate[] }
  | { host: string; label: string; error: string };

export type SendTarget =
  | { kind: 'here' }
  | { kind: 'peer'; host: string }
  | { kind: 'refused'; message: string };

/** Whether `target` is a name (looked up on every host) rather than a pane id. */
export function isName(target: string): boolean {
  return AGENT_NAME.test(target);
}

/** A pane id needs no peer when this host has it. */
export function needsPeers(target: string, here: HostAnswer): boolean {
  return isName(target) || !('matches' in here) || here.matches.length === 0;
}

function candidateText(candidate: Candidate): string {
  const name = candidate.name === null ? '' : ` ${clip(plainLine(candidate.name), 32)}`;
  return `${clip(plainLine(candidate.pane), 32)}${name}`;
}

/** A refusal lists this many entries of a list, then counts the rest: it stays one short line. */
const LISTED = 5;

function listed<T>(entries: readonly T[], text: (entry: T) => string): string {
  const shownEntries = entries.slice(0, LISTED).map(text);
  if (entries.length > LISTED) shownEntries.push(`and ${entries.length - LISTED} more`);
  return shownEntries.join(', ');
}

/**
 * The host that gets the record. `answers` holds this host first (host `local`), then each peer
 * asked. Every refusal is one line naming what was found where, or where it could not look.
 */
export function sendTarget(target: string, answers: readonly HostAnswer[]): SendTarget {
  const quoted = `"${clip(plainLine(target), 80)}"`;
  const found = answers.filter(
    (answer): answer is Extract<HostAnswer, { matches: readonly Candidate[] }> =>
      'matches' in answer && answer.matches.length > 0,
  );
  const [only] = found;
  if (found.length > 1) {
    const where = listed(
      found,
      (answer) => `${clip(plainLine(answer.label), 40)} (${listed(answer.matches, candidateText)})`,
    );
    return {
      kind: 'refused',
      message: `send: ${quoted} is on ${found.length} hosts: ${where}; name one with --host; nothing was sent`,
    };
  }
  if (only !== undefined) {
    if (only.matches.length > 1) {
      return {
        kind: 'refused',
        message: `send: ${quoted} names ${only.matches.length} panes on ${clip(plainLine(only.label), 40)}: ${listed(only.matches, candidateText)}; send to one pane id; nothing was sent`,
      };
    }
    return only.host === 'local' ? { kind: 'here' } : { kind: 'peer', host: only.host };
  }
  const looked = answers.filter((answer) => 'matches' in answer);
  const failed = answers.filter((answer) => 'error' in answer);
  const parts = [
    looked.length > 0
      ? `looked on ${listed(looked, (answer) => clip(plainLine(answer.label), 40))}`
      : 'looked nowhere',
    ...failed
      .slice(0, LISTED)
      .map(
        (answer) =>
          `${clip(plainLine(answer.label), 40)}: ${clip(plainLine((answer as { error: string }).error), 120)}`,
      ),
  ];
  if (failed.length > LISTED) parts.push(`and ${failed.length - LISTED} more could not be asked`);
  return {
    kind: 'refused',
    message: `send: no agent or pane ${quoted} on any host (${parts.join('; ')}); nothing was sent`,
  };
}
