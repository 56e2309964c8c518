// Keeps each checkout's facts between ticks, in two tiers. A checkout is read in full when its
// fingerprint (HEAD, index, refs) changed or its facts are older than `rereadAfterMs`; otherwise,
// once they are older than `refreshAfterMs` and its agents have written to their transcripts since
// (an agent's edits come with transcript writes), only the part the fingerprint cannot see
// (dirtiness) is refreshed. Quiet checkouts then cost a few stats per tick and no git process:
// spawning git from the service is its largest cost.

export interface CheckoutCacheIO<T> {
  fingerprint: (root: string) => Promise<string>;
  read: (root: string) => Promise<T>;
  /** Refreshes what the fingerprint cannot see; without it, a stale entry is read in full. */
  refresh?: (root: string, previous: T) => Promise<T>;
  now: () => number;
  refreshAfterMs: number;
  rereadAfterMs: number;
}

interface Entry<T> {
  fingerprint: string;
  readMs: number;
  refreshedMs: number;
  facts: T;
}

export class CheckoutCache<T> {
  private entries = new Map<string, Entry<T>>();

  constructor(private readonly deps: CheckoutCacheIO<T>) {}

  /** `activityMs`: the latest known change by whoever works there; null when it is not known. */
  async get(root: string, activityMs: number | null = null): Promise<T> {
    const { deps } = this;
    const fingerprint = await deps.fingerprint(root);
    const now = deps.now();
    const held = this.entries.get(root);
    if (held && held.fingerprint === fingerprint && now - held.readMs < deps.rereadAfterMs) {
      if (now - held.refreshedMs < deps.refreshAfterMs) return held.facts;
      if (activityMs !== null && activityMs < held.refreshedMs) return held.facts;
      if (deps.refresh) {
        held.facts = await deps.refresh(root, held.facts);
        held.refreshedMs = now;
        return held.facts;
      }
    }
    const facts = await deps.read(root);
    this.entries.set(root, { fingerprint, readMs: now, refreshedMs: now, facts });
    if (this.entries.size > EVICT_ABOVE) this.evict(now);
    return facts;
  }

  /** Forgets checkouts no pane has asked about for a while (removed worktrees, closed panes). */
  private evict(now: number): void {
    for (const [root, entry] of this.entries) {
      if (now - entry.refreshedMs > 4 * this.deps.refreshAfterMs) this.entries.delete(root);
    }
  }
}

const EVICT_ABOVE = 256;
