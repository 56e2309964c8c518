// What the children of this host's owners, and the children on this host, cost today, for budgets
// (core/receipts/day-budget.ts): the receipts of history.jsonl, of closed items not yet in it, and of
// this host's running children, read from their transcripts so far (a child's transcript is found
// by its terminal in host.json's agent panes). A running child on a peer has no transcript here: its
// cost counts once its receipt arrives. A transcript is read again only when it changed.

import type { Item } from '../core/agents/item-types.js';
import type { ChildSpend } from '../core/receipts/day-budget.js';
import { priceTable } from '../core/receipts/prices.js';
import { childReceipt } from '../core/receipts/receipt.js';
import { formatOf } from '../probe/transcripts/formats.js';
import { readTranscriptUsage } from '../probe/transcripts/usage-read.js';
import { readState } from '../state/engine/store.js';
import type { HostIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import { HostSnapshotSchema } from '../state/schemas/host-schemas.js';
import { type HistoryRead, readHistory } from './history-file.js';

const LOCAL = 'local';

/** The costs of running children's transcripts, by path, kept while the file is unchanged. */
export class RunningCosts {
  private readonly known = new Map<string, { modified: number | null; usd: number | null }>();

  async cost(io: HostIO, item: Item, transcript: string, agent: string, modified: number | null) {
    const seen = this.known.get(transcript);
    if (seen !== undefined && modified !== null && seen.modified === modified) return seen.usd;
    const format = formatOf(agent);
    const tally = format === undefined ? null : await readTranscriptUsage(transcript, format);
    const models = tally?.models() ?? [];
    const receipt = childReceipt(
      models.length > 0 ? models : null,
      priceTable(io.config.prices),
      item.created_ms,
      io.now(),
    );
    this.known.set(transcript, { modified, usd: receipt.usd });
    return receipt.usd;
  }

  /** Forgets transcripts no running child has any more. */
  keep(paths: ReadonlySet<string>): void {
    for (const path of this.known.keys()) if (!paths.has(path)) this.known.delete(path);
  }
}

/**
 * Every child cost a budget counts, history's first (the same child later in items is skipped);
 * `history` when the caller has read history.jsonl already.
 */
export async function readChildSpends(
  io: HostIO,
  costs = new RunningCosts(),
  history?: HistoryRead,
): Promise<ChildSpend[]> {
  const [{ entries }, items, snapshot] = await Promise.all([
    history ?? readHistory(io),
    readItems(io),
    readState(io.paths.host, HostSnapshotSchema, io).catch(() => undefined),
  ]);
  const spends: ChildSpend[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'agent') continue;
    spends.push({
      id: entry.id,
      owner: entry.owner,
      host: entry.host,
      usd: entry.receipt?.usd ?? null,
      ended_ms: entry.ended_ms,
    });
  }
  const panes = new Map((snapshot?.probe.agent_panes ?? []).map((pane) => [pane.terminal_id, pane]));
  const read = new Set<string>();
  for (const item of items.items) {
    if (item.kind !== 'agent') continue;
    const base = { id: item.id, owner: item.owner, host: item.host };
    if (item.closed_ms !== null) {
      spends.push({ ...base, usd: item.receipt?.usd ?? null, ended_ms: item.closed_ms });
      continue;
    }
    const pane = item.host === LOCAL && item.terminal_id !== null ? panes.get(item.terminal_id) : undefined;
    if (pane?.transcript == null) {
      spends.push({ ...base, usd: null, ended_ms: null });
      continue;
    }
    read.add(pane.transcript);
    const usd = await costs.cost(io, item, pane.transcript, pane.agent, pane.transcript_modified);
    spends.push({ ...base, usd, ended_ms: null });
  }
  costs.keep(read);
  return spends;
}
