// When and how this host collects quota: `quota` (cached, when due, or forced) and the service's
// worker both come through refreshQuota. Collection happens only where a management URL is
// configured and the key can be read (macOS), one collector at a time (the quota-collect lock);
// a failed collection keeps the last good snapshot and backs off (core/backoff.ts), recorded in
// quota-collect.json so every process on the host honours it.

import { hostname } from 'node:os';
import { backoffRetryAt } from '../core/common/backoff.js';
import { formatAge } from '../core/common/duration.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import type { QuotaSnapshot } from '../core/quota/quota-rows.js';
import type { QuotaCollect } from '../core/quota/quota-rules.js';
import { refreshDue } from '../core/quota/quota-rules.js';
import { squeezedLine } from '../core/text/clean.js';
import { withLock } from '../state/engine/lock.js';
import { readState, writeState } from '../state/engine/store.js';
import type { HostIO, StateIO } from '../state/io.js';
import { QuotaCollectSchema } from '../state/schemas/quota-schemas.js';
import { ManagementError, openManagement } from './cliproxy.js';
import { collectQuota } from './collect.js';
import { keySource, readManagementKey } from './key.js';
import { readQuota, storeSnapshot } from './quota-store.js';

/** State IO, and what collecting needs beyond it. */
export interface QuotaIO extends StateIO {
  /** `[quota] management_url`: the https origin, or null when not configured. */
  managementUrl: string | null;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** This host's name: the source of what it collects. */
  hostname: string;
  /** Extra trust for the management origin's CA (PEM); tests and private CAs. */
  ca?: string | Buffer | undefined;
  /** A draw in [0, 1) for backoff jitter; Math.random by default. */
  random?: () => number;
}

/** This host's QuotaIO: its config's management URL, its platform and its name. */
export function hostQuotaIO(io: HostIO): QuotaIO {
  const { paths, now, warn, signal, env } = io;
  const managementUrl = io.config.quota.management_url;
  return { paths, now, warn, signal, env, managementUrl, platform: process.platform, hostname: hostname() };
}

/** `cached`: quota.json only. `auto`: collect when due and not backing off. `refresh`: collect now. */
export type QuotaMode = 'cached' | 'auto' | 'refresh';

export interface QuotaOutcome {
  snapshot: QuotaSnapshot;
  /** This call collected the snapshot and stored it. */
  collected: boolean;
  /** Why the snapshot shown is the cached one, when the caller asked for more (one safe line). */
  note: string | null;
  /** When a failed collection may be tried again (Unix ms), while backing off; else null. */
  retry_at_ms: number | null;
}

/** One collection, key read and HTTP calls included; a slower one fails and backs off. */
export const COLLECT_DEADLINE_MS = 25_000;
/** How long the key read may take: Keychain may ask to be unlocked. */
const KEY_DEADLINE_MS = 20_000;

export async function refreshQuota(caller: QuotaIO, mode: QuotaMode): Promise<QuotaOutcome> {
  // A damaged backoff file is read twice and written once per call: one warning is enough.
  const io: QuotaIO = { ...caller, warn: once(caller.warn) };
  const current = await readQuota(io);
  const cached = (note: string | null, retry_at_ms: number | null = null) =>
    notCollected(current, note, retry_at_ms);
  if (mode === 'cached') return cached(null);
  if (io.managementUrl === null) return cached('no [quota] management_url is configured on this host');
  const source = keySource(io.platform, io.env);
  if (source.kind === 'none') return cached(source.reason);
  if (mode === 'auto') {
    if (!refreshDue(current, io.now())) return cached(null);
    const backoff = await readCollect(io);
    if (backoff && io.now() < backoff.retry_at_ms) {
      return cached(backingOff(backoff, io.now()), backoff.retry_at_ms);
    }
  }
  const asked = io.now();
  try {
    return await withLock(io.paths.quotaCollectLock, () => collectLocked(io, mode, asked), {
      signal: io.signal,
    });
  } catch (error) {
    // A collector frozen inside the lock (SIGSTOP, a hung Keychain prompt) must not take the cache away.
    if (error instanceof DogsledError && /^lock on quota-collect: timed out/.test(error.message)) {
      return notCollected(await readQuota(io), error.message, null);
    }
    throw error;
  }
}

async function collectLocked(io: QuotaIO, mode: QuotaMode, asked: number): Promise<QuotaOutcome> {
  const latest = await readQuota(io);
  const kept = (note: string | null, retry_at_ms: number | null = null) =>
    notCollected(latest, note, retry_at_ms);
  // Another process collected while this one waited for the lock: its snapshot answers this call too.
  if (latest.fetched_ms > asked) return kept(null);
  if (mode === 'auto' && !refreshDue(latest, io.now())) return kept(null);
  const previous = await readCollect(io);
  const key = await readManagementKey(
    keySource(io.platform, io.env),
    io.env,
    AbortSignal.timeout(KEY_DEADLINE_MS),
  );
  if (!key.ok) return kept(key.reason);
  const session = openManagement({ origin: io.managementUrl as string, key: key.key, ca: io.ca });
  const deadline = AbortSignal.timeout(COLLECT_DEADLINE_MS);
  const signal = io.signal ? AbortSignal.any([deadline, io.signal]) : deadline;
  let snapshot: QuotaSnapshot;
  try {
    snapshot = await collectQuota(session, { now: io.now, hostname: io.hostname, signal });
  } catch (error) {
    if (!(error instanceof ManagementError)) throw error;
    const failures = (previous?.failures ?? 0) + 1;
    const now = io.now();
    const last_error = squeezedLine(error.message, 300);
    const retry_at_ms = backoffRetryAt(now, failures - 1, (io.random ?? Math.random)());
    await writeCollect(io, { version: 1, failures, last_error, last_attempt_ms: now, retry_at_ms });
    return kept(`collection failed, showing the last good snapshot: ${last_error}`, retry_at_ms);
  } finally {
    session.close();
  }
  const stored = await storeSnapshot(io, snapshot);
  await writeCollect(io, {
    version: 1,
    failures: 0,
    last_error: null,
    last_attempt_ms: io.now(),
    retry_at_ms: 0,
  });
  if (stored.stored) return { snapshot, collected: true, note: null, retry_at_ms: null };
  return kept(null);
}

function notCollected(
  snapshot: QuotaSnapshot,
  note: string | null,
  retry_at_ms: number | null,
): QuotaOutcome {
  return { snapshot, collected: false, note, retry_at_ms };
}

function backingOff(state: QuotaCollect, now: number): string {
  const ago = formatAge(now - state.last_attempt_ms);
  const next = formatAge(state.retry_at_ms - now);
  return `the last collection failed ${ago} ago (${state.last_error ?? 'unknown error'}); next try in ${next}`;
}

/** The backoff record; a damaged or unreadable one counts as none (the warning says so). */
async function readCollect(io: QuotaIO): Promise<QuotaCollect | undefined> {
  try {
    return await readState(io.paths.quotaCollect, QuotaCollectSchema, io);
  } catch (error) {
    io.warn(`dogsled: warning: quota: ${messageOf(error)}`);
    return undefined;
  }
}

/** Written under the collect lock, its only writer. A failure to record backoff never hides the quota. */
async function writeCollect(io: QuotaIO, state: QuotaCollect): Promise<void> {
  try {
    await writeState(io.paths.quotaCollect, QuotaCollectSchema, state);
  } catch (error) {
    io.warn(`dogsled: warning: quota: ${messageOf(error)}`);
  }
}

function once(warn: (line: string) => void): (line: string) => void {
  const seen = new Set<string>();
  return (line) => {
    if (seen.has(line)) return;
    seen.add(line);
    warn(line);
  };
}
