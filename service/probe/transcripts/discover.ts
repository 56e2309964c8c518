// Which file is an agent pane's transcript. A Herdr path session names the file; an exact Claude or
// Codex session id resolves against that harness's standard session directory and must match
// exactly one file. Nothing is guessed from the working directory or from recency: no match is
// "absent", two are "ambiguous", and a file that cannot be opened is "unreadable" (spec, "Host
// service and status": such transcripts never make a pane stall).

import { isAbsolute, join } from 'node:path';
import { type ListDir, type SessionIndex, type TranscriptCache, transcriptCache } from './cache.js';
import { type FileFacts, nodeTranscriptFs, type TranscriptFs } from './fs.js';

/** Herdr's agent_session: `kind` is 'id' or 'path'; any other kind resolves to no_session. */
export interface SessionRef {
  kind: 'id' | 'path' | (string & {});
  value: string;
}

export interface DiscoverQuery {
  /** Herdr's agent kind: 'claude', 'codex', 'pi' or any other label. */
  agent: string;
  session?: SessionRef | null;
  /** The home directory whose ~/.claude and ~/.codex are searched. */
  home: string;
}

export type NoTranscriptReason = 'absent' | 'ambiguous' | 'unreadable' | 'no_session';

export type Discovery = { path: string; modified_ms: number } | { path: null; reason: NoTranscriptReason };

/** A discovery with the stat it was judged by, for a caller that reads the file next (the service). */
export type FileDiscovery =
  | { path: string; modified_ms: number; file: FileFacts }
  | { path: null; reason: NoTranscriptReason };

export interface TranscriptIO {
  fs?: TranscriptFs;
  /** Shared across calls (one per service) so a tick with many panes walks each tree once. */
  cache?: TranscriptCache;
  now?: () => number;
}

/** Session ids are UUIDs in practice; anything that could climb out of a directory is refused. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const CODEX_ROLLOUT = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-(.+)\.jsonl$/;
const YEAR = /^\d{4}$/;
const TWO_DIGITS = /^\d{2}$/;

/**
 * `no_session`: no reference this host can resolve (none given, a relative path, an id with path
 * characters, an unknown kind, or an id for a harness other than Claude and Codex).
 */
export async function discoverTranscript(query: DiscoverQuery, deps: TranscriptIO = {}): Promise<Discovery> {
  const found = await discoverTranscriptFile(query, deps);
  return found.path === null ? found : { path: found.path, modified_ms: found.modified_ms };
}

/**
 * discoverTranscript with the file's stat. With a cache, a file already opened at the same
 * identity (sameFile) is not opened again: a quiet transcript costs one stat.
 */
export async function discoverTranscriptFile(
  query: DiscoverQuery,
  deps: TranscriptIO = {},
): Promise<FileDiscovery> {
  const fs = deps.fs ?? nodeTranscriptFs;
  const session = query.session;
  if (!session || session.value === '') return { path: null, reason: 'no_session' };
  if (session.kind === 'path') {
    if (!isAbsolute(session.value)) return { path: null, reason: 'no_session' };
    return fileAt(fs, session.value, deps.cache);
  }
  if (session.kind !== 'id' || !SAFE_ID.test(session.value)) return { path: null, reason: 'no_session' };
  const build = indexBuilder(query.agent, query.home);
  if (!build) return { path: null, reason: 'no_session' };
  const cache = deps.cache ?? transcriptCache({ maxAgeMs: 0 });
  const now = (deps.now ?? Date.now)();
  let index: SessionIndex;
  try {
    index = await cache.index(`${query.agent}\0${query.home}`, now, fs, build);
  } catch {
    return { path: null, reason: 'unreadable' };
  }
  const matches = index.get(session.value) ?? [];
  if (matches.length === 0) return { path: null, reason: 'absent' };
  if (matches.length > 1) return { path: null, reason: 'ambiguous' };
  const found = await fileAt(fs, matches[0]!, cache);
  // The index was older than the file system: let the next call see the change.
  if (found.path === null && found.reason === 'absent') cache.invalidate(`${query.agent}\0${query.home}`);
  return found;
}

type Build = (list: ListDir) => Promise<SessionIndex>;

function indexBuilder(agent: string, home: string): Build | undefined {
  if (agent === 'claude') return (list) => claudeIndex(list, join(home, '.claude', 'projects'));
  if (agent === 'codex') return (list) => codexIndex(list, join(home, '.codex', 'sessions'));
  return undefined;
}

/** ~/.claude/projects/<slug>/<session-id>.jsonl, one directory per working directory. */
async function claudeIndex(list: ListDir, root: string): Promise<SessionIndex> {
  const index: SessionIndex = new Map();
  for (const project of (await list(root)) ?? []) {
    const dir = join(root, project);
    for (const name of (await list(dir)) ?? []) {
      if (name.endsWith('.jsonl')) add(index, name.slice(0, -'.jsonl'.length), join(dir, name));
    }
  }
  return index;
}

/**
 * ~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl. Only date-named directories are
 * entered, newest first, so the walk is bounded by the calendar and never follows stray trees.
 */
async function codexIndex(list: ListDir, root: string): Promise<SessionIndex> {
  const index: SessionIndex = new Map();
  const dated = async (dir: string, pattern: RegExp) =>
    ((await list(dir)) ?? []).filter((name) => pattern.test(name)).sort((a, b) => b.localeCompare(a));
  for (const year of await dated(root, YEAR)) {
    for (const month of await dated(join(root, year), TWO_DIGITS)) {
      for (const day of await dated(join(root, year, month), TWO_DIGITS)) {
        const dir = join(root, year, month, day);
        for (const name of (await list(dir)) ?? []) {
          const id = CODEX_ROLLOUT.exec(name)?.[1];
          if (id) add(index, id, join(dir, name));
        }
      }
    }
  }
  return index;
}

function add(index: SessionIndex, id: string, path: string): void {
  const paths = index.get(id);
  if (paths) paths.push(path);
  else index.set(id, [path]);
}

/** The transcript at `path` if it is a regular file this process can open. */
async function fileAt(
  fs: TranscriptFs,
  path: string,
  cache: TranscriptCache | undefined,
): Promise<FileDiscovery> {
  let facts: FileFacts | undefined;
  try {
    facts = await fs.stat(path);
    if (facts?.isFile && !cache?.opened(path, facts)) {
      await fs.read(path, 0, 0);
      cache?.rememberOpened(path, facts);
    }
  } catch {
    return { path: null, reason: 'unreadable' };
  }
  if (!facts) return { path: null, reason: 'absent' };
  if (!facts.isFile) return { path: null, reason: 'unreadable' };
  return { path, modified_ms: Math.floor(facts.mtimeMs), file: facts };
}
