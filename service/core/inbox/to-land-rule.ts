// An owner's TO LAND rows (spec, "Items and closing", "Stop gate", "Prompt context"): its finished
// children whose branch still holds commits the default branch lacks, or uncommitted changes. One
// rule for the board, the stop gate, the Stop response and prompt context, so they never disagree.
// The rows come from durable items and branch observations (branches.json, or what a peer forwarded
// onto the item), not from live panes: a child closed by `done` keeps its row until its branch is
// integrated or deleted. A child still open counts once its pane is idle or done on its own host (a
// peer's child by that peer's snapshot: pane ids repeat across hosts); a working, blocked or unseen
// one does not. Pure: the reader in service/queue gathers items, observations and the agent panes
// of this host's snapshot and of the peers' cached ones.

/** The item facts the rule reads (items.json). */
export interface LandItem {
  id: string;
  kind: 'job' | 'agent';
  owner: string | null;
  closed_ms: number | null;
  pane: string | null;
  terminal_id: string | null;
  host: string;
  name?: string | null | undefined;
  branch?: string | null | undefined;
}

/** What the service last saw of a child's branch (branches.json, or a peer's forwarded facts). */
export interface LandObservation {
  item: string;
  branch: string;
  ahead: number;
  dirty: boolean;
  /** Integrated into the default branch, or deleted: nothing to land. */
  landed: boolean;
  observed_ms: number;
}

/** An agent pane as the snapshot shows it: only whether an open child has finished its turn. */
export interface LandPane {
  pane: string;
  terminal_id: string;
  state: string;
}

/** An agent pane on a host: this host's snapshot's (`local`), or a peer's as its cache entry has it. */
export interface HostLandPane extends LandPane {
  host: string;
}

/** One TO LAND row: `<child>: branch <b> +N to land`. */
export interface LandRow {
  item: string;
  /** The child's name (untrusted: renderers clean it). */
  name: string;
  host: string;
  branch: string;
  ahead: number;
  dirty: boolean;
  /** When the branch was observed so. */
  observed_ms: number;
}

const FINISHED = new Set(['idle', 'done']);

/** The pane facts that belong to an item: by terminal first (a moved pane keeps it), else by pane. */
export function factsFor<T extends Pick<LandPane, 'pane' | 'terminal_id'>>(
  item: Pick<LandItem, 'pane' | 'terminal_id'>,
  panes: readonly T[],
): T | undefined {
  if (item.terminal_id !== null) {
    const byTerminal = panes.find((p) => p.terminal_id === item.terminal_id);
    if (byTerminal) return byTerminal;
  }
  return item.pane === null ? undefined : panes.find((p) => p.pane === item.pane);
}

/** Whether an owner's agent item can have a row at all (a child started with `--branch`). */
export function mayLand(item: LandItem, owner: string): boolean {
  return item.kind === 'agent' && item.owner === owner && !!item.branch;
}

/**
 * The owner's TO LAND rows, sorted by item id. A row needs an observation of the child's branch
 * with commits to land or uncommitted changes, not landed; a closed child always counts, an open
 * one only while its pane on its host is idle or done. The newest observation of an item wins.
 */
export function ownerToLand(
  owner: string,
  items: readonly LandItem[],
  observations: readonly LandObservation[],
  panes: readonly HostLandPane[],
): LandRow[] {
  const newest = new Map<string, LandObservation>();
  for (const seen of observations) {
    const known = newest.get(seen.item);
    if (known === undefined || seen.observed_ms >= known.observed_ms) newest.set(seen.item, seen);
  }
  const rows: LandRow[] = [];
  for (const item of items) {
    if (!mayLand(item, owner)) continue;
    const seen = newest.get(item.id);
    if (seen === undefined || seen.landed || (seen.ahead <= 0 && !seen.dirty)) continue;
    if (item.closed_ms === null && !finishedTurn(item, panes)) continue;
    rows.push({
      item: item.id,
      name: item.name ?? item.id,
      host: item.host,
      branch: seen.branch,
      ahead: Math.max(0, seen.ahead),
      dirty: seen.dirty,
      observed_ms: seen.observed_ms,
    });
  }
  return rows.sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
}

/** Whether an open child's pane, on the child's own host, shows its turn finished (idle or done). */
function finishedTurn(item: LandItem, panes: readonly HostLandPane[]): boolean {
  const onItsHost = panes.filter((pane) => pane.host === item.host);
  return FINISHED.has(factsFor(item, onItsHost)?.state ?? '');
}
