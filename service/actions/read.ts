// `dogsled read TARGET [--host H]`: a child's or job's newest output and, for a child, its captured
// final reply. TARGET is a child's name, an item, pane, launch or job id. Every text here came from an
// agent, a pane or a log: escapes are stripped before it is returned. A child or job on a peer (by
// `--host`, or by its item) is read there with `host read` (peer-actions.ts).

import { lstat, open } from 'node:fs/promises';
import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import { quoted, stripEscapes } from '../core/text/clean.js';
import { readFleet } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { hostOfFlag } from '../hosts/peer-cleanup.js';
import type { HostIO } from '../state/io.js';
import { jobLogPath } from '../state/records/job-records.js';
import { readItems } from '../state/records/queue-items.js';
import { openTerminal } from '../terminal/open.js';
import { isTerminalError } from '../terminal/terminal-errors.js';
import { readOnPeer } from './peer-actions.js';

/** Lines of output `read` shows: the newest, like a glance at the pane. */
export const READ_LINES = 40;
/** The most of a job log read from its end: enough for READ_LINES long lines. */
const LOG_TAIL_BYTES = 64 * 1024;

export interface ReadReport {
  target: string;
  kind: 'agent' | 'job';
  item: string | null;
  name: string | null;
  host: string;
  pane: string | null;
  /** The newest lines, or null when there is nothing to read any more (the pane is gone). */
  output: string | null;
  /** A child's captured final reply; null until it finished (always null for a job). */
  reply: string | null;
}

export async function readTarget(io: HostIO, target: string, host: string | null): Promise<ReadReport> {
  const pinned = host === null ? null : await hostOfFlag(io, host);
  if (pinned !== null) return readOnPeer(io, pinned, target);
  const item = findItem(
    (await readItems(io)).items.filter((entry) => host === null || entry.host === LOCAL_HOST.id),
    target,
  );
  // A child or job on a peer is read there, by the item id both hosts keep for it.
  if (item !== undefined && item.host !== LOCAL_HOST.id) {
    const peer = (await readFleet(io)).peers.find((entry) => entry.id === item.host);
    if (peer === undefined)
      throw new DogsledError(`${quoted(target)} runs on ${item.host}, which is no longer a known host`);
    return readOnPeer(io, peer, item.id, target);
  }
  const jobId = item?.job ?? (/^j_[A-Za-z0-9]+$/.test(target) ? target : null);
  if (item?.kind !== 'agent' && jobId !== null) {
    return {
      target,
      kind: 'job',
      item: item?.id ?? null,
      name: null,
      host: item?.host ?? LOCAL_HOST.id,
      pane: item?.pane ?? null,
      output: await logTail(io, jobId),
      reply: null,
    };
  }
  if (item === undefined) throw new DogsledError(`no child or job ${quoted(target)} here`);
  return {
    target,
    kind: 'agent',
    item: item.id,
    name: item.name ?? null,
    host: item.host,
    pane: item.pane,
    output: item.closed_ms === null ? await paneTail(io, item) : null,
    reply: item.reply == null ? null : stripEscapes(item.reply),
  };
}

/** The newest item the target names: open items first, then by name, id, pane or launch. */
function findItem(items: readonly Item[], target: string): Item | undefined {
  const matches = items.filter(
    (item) =>
      item.id === target ||
      item.name === target ||
      item.pane === target ||
      item.launch === target ||
      item.job === target,
  );
  const ordered = [...matches].sort(
    (a, b) => Number(a.closed_ms !== null) - Number(b.closed_ms !== null) || b.created_ms - a.created_ms,
  );
  return ordered[0];
}

async function paneTail(io: HostIO, item: Item): Promise<string | null> {
  if (item.pane === null) return null;
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'read', warn: io.warn });
  if (port.kind === 'headless') return null;
  try {
    const read = await port.readPane(item.pane, { source: 'recent', lines: READ_LINES, format: 'text' });
    return tail(stripEscapes(read.text));
  } catch (error) {
    if (isTerminalError(error, 'pane_not_found')) return null;
    throw error;
  }
}

async function logTail(io: HostIO, jobId: string): Promise<string | null> {
  const path = jobLogPath(io.paths, jobId);
  // Only a regular file is opened: opening a FIFO in its place would wait for a writer for ever.
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new DogsledError(`no log for job ${jobId}`);
    throw error;
  });
  if (!found.isFile()) throw new DogsledError(`the log of job ${jobId} (${path}) is not a regular file`);
  const handle = await open(path, 'r');
  try {
    const stats = await handle.stat();
    const length = Math.min(stats.size, LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, stats.size - length);
    return tail(stripEscapes(buffer.toString('utf8')));
  } finally {
    await handle.close();
  }
}

function tail(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(-READ_LINES).join('\n');
}
