// `dogsled quota [--json] [--cached] [--refresh]`: the quota snapshot, collected first when it is
// older than five minutes (or always with --refresh) on a host that collects; --cached reads only
// quota.json. The hidden `quota --store` takes one snapshot on stdin (what a collector pushes) and
// stores it with the same newer-wins writer as `host quota-store`.

import {
  MAX_SNAPSHOT_BYTES,
  type QuotaMode,
  quotaReport,
  storePushedSnapshot,
} from '../../service/actions/quota.js';
import { DogsledError } from '../../service/core/common/errors.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { renderQuota } from '../render/quota-human.js';

export interface QuotaFlags {
  json?: boolean;
  cached?: boolean;
  refresh?: boolean;
  store?: boolean;
}

export async function quotaCommand(flags: QuotaFlags, ctx: CliContext): Promise<number> {
  if (flags.store) return storeCommand(flags, ctx);
  if (flags.cached && flags.refresh) {
    throw new DogsledError('--cached and --refresh contradict each other: choose one');
  }
  const mode: QuotaMode = flags.cached ? 'cached' : flags.refresh ? 'refresh' : 'auto';
  const io = await hostIO(ctx);
  const report = await quotaReport(io, mode);
  // Why the cache is shown matters to someone who asked for collection: --refresh, or a host set
  // up to collect. A host that only receives snapshots is not told so on every call.
  if (report.note !== null && (mode === 'refresh' || io.config.quota.management_url !== null)) {
    ctx.warn(`dogsled: warning: quota: ${report.note}`);
  }
  if (flags.json) {
    ctx.out(`${JSON.stringify(report.snapshot, null, 2)}\n`);
    return 0;
  }
  const width = ctx.stdoutIsTTY ? process.stdout.columns || 80 : 80;
  ctx.out(`${renderQuota(report, width).join('\n')}\n`);
  return 0;
}

async function storeCommand(flags: QuotaFlags, ctx: CliContext): Promise<number> {
  if (flags.json || flags.cached || flags.refresh) {
    throw new DogsledError('--store reads one snapshot from stdin and takes no other flag');
  }
  const input = await readInput(MAX_SNAPSHOT_BYTES);
  const result = await storePushedSnapshot(ctx, input);
  if (!result.stored) {
    ctx.warn(
      `dogsled: quota --store: kept the stored snapshot: it is as new or newer (fetched_ms ${result.fetched_ms})`,
    );
  }
  return 0;
}

/** stdin, refused once it passes `limit` bytes (without reading the rest into memory). */
async function readInput(limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > limit) throw new DogsledError(`snapshot on stdin: larger than ${limit} bytes`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
