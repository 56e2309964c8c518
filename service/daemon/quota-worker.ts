// The service's quota worker: every five minutes it collects quota when due (refreshQuota, under
// the same lock and backoff as the `quota` command) and pushes each snapshot this host collected to
// its peers, retrying failed pushes with backoff. Snapshots pushed here by another collector are
// never pushed on. Without a management URL it has nothing to do and does not run.

import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../core/common/errors.js';
import { QUOTA_REFRESH_MS } from '../core/quota/quota-rules.js';
import { QuotaPusher } from '../quota/push.js';
import { readQuota } from '../quota/quota-store.js';
import { type QuotaIO, refreshQuota } from '../quota/refresh.js';
import type { PeerTarget, Transport } from '../transport/types.js';

/** Never sooner than this between passes, whatever a retry time says. */
const MIN_PAUSE_MS = 1_000;

/** What collecting needs (its deadline is the worker's), and where to push. */
export interface QuotaWorkerIO extends Omit<QuotaIO, 'signal'> {
  /**
   * The enabled peers to push to (Herdr machines or config hosts), read before each push; what the
   * read has to say goes to `warn`, which the worker repeats only when it changes.
   */
  peers?: (warn: (line: string) => void) => Promise<readonly PeerTarget[]> | readonly PeerTarget[];
  /** Made on first use, only when there is a peer to push to. */
  transport?: () => Transport;
}

export interface QuotaWorker {
  /** One pass: collect when due, push when due. Returns how long to wait before the next. */
  pass(): Promise<number>;
  /** Closes the transport it opened. */
  close(): Promise<void>;
}

/** The service's worker: a pass, then a pause until the next is due, until the signal aborts. */
export function startQuotaWorker(io: QuotaWorkerIO, signal: AbortSignal): { stop(): Promise<void> } {
  const stopper = new AbortController();
  const stopped = AbortSignal.any([signal, stopper.signal]);
  const worker = quotaWorker(io, stopped);
  const done = io.managementUrl === null ? Promise.resolve() : loop(worker.pass, stopped);
  return {
    stop: async () => {
      stopper.abort();
      await done;
      await worker.close();
    },
  };
}

/** The passes themselves, without a schedule (the service loops them; tests call them). */
export function quotaWorker(io: QuotaWorkerIO, stopped: AbortSignal): QuotaWorker {
  let transport: Transport | undefined;
  let pusher: QuotaPusher | undefined;
  const warned = new Map<string, string>();
  const warnOnce = (topic: string, message: string | null): void => {
    if (message === null) {
      warned.delete(topic);
      return;
    }
    if (warned.get(topic) === message) return;
    warned.set(topic, message);
    io.warn(`dogsled serve: quota: ${message}`);
  };

  // A peer list that cannot be read (Herdr gone, a bad machine) pushes to none this pass and is
  // said once until what it says changes; the fleet's own lines are already whole warnings.
  let peerNotes = '';
  const readPeers = async (): Promise<readonly PeerTarget[]> => {
    const lines: string[] = [];
    let peers: readonly PeerTarget[] = [];
    try {
      peers = (await io.peers?.((line) => lines.push(line))) ?? [];
    } catch (error) {
      lines.push(`dogsled serve: quota: peer list: ${messageOf(error)}`);
    }
    const notes = lines.join('\n');
    if (notes !== peerNotes) for (const line of lines) io.warn(line);
    peerNotes = notes;
    return peers;
  };

  const pass = async (): Promise<number> => {
    const call: QuotaIO = { ...io, signal: stopped };
    let retryAt: number | null = null;
    try {
      const outcome = await refreshQuota(call, 'auto');
      warnOnce('collect', outcome.note);
      retryAt = outcome.retry_at_ms;
    } catch (error) {
      if (stopped.aborted) return QUOTA_REFRESH_MS;
      warnOnce('collect', messageOf(error));
    }
    let wait = QUOTA_REFRESH_MS;
    try {
      const snapshot = await readQuota(call);
      const now = io.now();
      const dueIn = snapshot.fetched_ms > 0 ? snapshot.fetched_ms + QUOTA_REFRESH_MS - now : 0;
      // Due and not collected: backing off (then its retry time), or it could not collect at all
      // (no key, a lock held elsewhere), which the next regular pass tries again.
      if (dueIn > 0) wait = Math.min(wait, dueIn);
      else if (retryAt !== null) wait = retryAt - now;
      const peers = snapshot.source === io.hostname && snapshot.fetched_ms > 0 ? await readPeers() : [];
      if (peers.length > 0) {
        transport ??= io.transport?.() ?? (await defaultTransport());
        pusher ??= new QuotaPusher({
          transport,
          signal: stopped,
          now: io.now,
          ...(io.random ? { random: io.random } : {}),
        });
        for (const result of await pusher.push(snapshot, peers)) {
          warnOnce(`push ${result.host}`, result.ok ? null : `push to ${result.host}: ${result.error}`);
        }
        const retry = pusher.nextRetryAt();
        if (retry !== null) wait = Math.min(wait, retry - now);
      }
    } catch (error) {
      warnOnce('push', messageOf(error));
    }
    return Math.max(MIN_PAUSE_MS, wait);
  };

  return { pass, close: async () => transport?.close() };
}

async function loop(pass: () => Promise<number>, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const wait = await pass();
    // Unref'd: the worker alone never keeps the process alive after the service ended.
    await sleep(wait, undefined, { signal, ref: false }).catch(() => undefined);
  }
}

async function defaultTransport(): Promise<Transport> {
  const { OpenSshTransport } = await import('../transport/openssh.js');
  return new OpenSshTransport();
}
