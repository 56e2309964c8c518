// Keeps each checkout's facts between ticks. A checkout is read again when its HEAD or index
// changed (a commit, a checkout, an add) or its facts are older than `maxAgeMs` (edits to working
// files change nothing git records, so dirtiness is refreshed on this timer). Fifty panes in ten
// checkouts then cost a few stats per tick instead of forty git processes.

export interface CheckoutCacheDeps<T> {
  fingerprint: (root: string) => Promise<string>;
  read: (root: string) => Promise<T>;
  now: () => number;
  maxAgeMs: number;
}

export class CheckoutCache<T> {
  private entries = new Map<string, { fingerprint: string; readMs: number; facts: T }>();

  constructor(private readonly deps: CheckoutCacheDeps<T>) {}

  async get(root: string): Promise<T> {
    const fingerprint = await this.deps.fingerprint(root);
    const now = this.deps.now();
    const held = this.entries.get(root);
    if (held && held.fingerprint === fingerprint && now - held.readMs < this.deps.maxAgeMs) return held.facts;
    const facts = await this.deps.read(root);
    this.entries.set(root, { fingerprint, readMs: now, facts });
    if (this.entries.size > EVICT_ABOVE) this.evict(now);
    return facts;
  }

  /** Forgets checkouts no pane has asked about for a while (removed worktrees, closed panes). */
  private evict(now: number): void {
    for (const [root, entry] of this.entries) {
      if (now - entry.readMs > 4 * this.deps.maxAgeMs) this.entries.delete(root);
    }
  }
}

const EVICT_ABOVE = 256;
