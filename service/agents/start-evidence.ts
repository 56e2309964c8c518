// What this host holds that a launch's child left behind, read when the pane of a start Herdr never
// confirmed is gone (core/agent-start.ts judges it): done marks, the launch's item, every inbox, the
// outbox, and the harness transcripts of the child's directory that name its task file. Each source
// that cannot be read (missing, a directory, a FIFO, unreadable, corrupt) simply proves nothing.

import { constants } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaunchKey, SignOfLife, StartFacts } from '../core/agents/start-tries-rule.js';
import { signsOfLife } from '../core/agents/start-tries-rule.js';
import { inboxTerminals } from '../inbox/inbox-files.js';
import { readOutbox } from '../inbox/outbox.js';
import { readAllRecords } from '../inbox/settled.js';
import type { StateIO } from '../state/io.js';
import { readDoneMarks } from '../state/records/done-marks.js';
import { readItems } from '../state/records/queue-items.js';

/** The launch as its record knows it. */
export interface LaunchFacts {
  id: string;
  item: string | null;
  terminal: string;
  createdMs: number;
  kind: string;
  cwd: string;
  taskFile: string;
}

/** The head of a transcript that is searched for the task file (the launch prompt is near its top). */
const TRANSCRIPT_HEAD_BYTES = 256 * 1024;
/** Transcripts read per launch at most, newest first. */
const TRANSCRIPTS_MAX = 32;
/** Inbox files read per launch at most. */
const INBOXES_MAX = 256;

/** The signs that the launch's child ran (core/agent-start.ts signsOfLife), from this host's files. */
export async function startSigns(io: StateIO & { home: string }, launch: LaunchFacts): Promise<SignOfLife[]> {
  const key: LaunchKey = {
    launch: launch.id,
    item: launch.item,
    terminal: launch.terminal,
    createdMs: launch.createdMs,
  };
  const [marks, item, inbox, outbox, transcript] = await Promise.all([
    readDoneMarks(io).then(
      (file) => file.marks,
      () => [],
    ),
    readItems(io).then(
      (file) => file.items.find((entry) => entry.id === launch.item) ?? null,
      () => null,
    ),
    inboxRecords(io),
    readOutbox(io).catch(() => []),
    transcriptNames(io.home, launch, io.now()).catch(() => false),
  ]);
  const facts: StartFacts = { marks, item, inbox, outbox, transcript };
  return signsOfLife(key, facts);
}

async function inboxRecords(io: StateIO): Promise<StartFacts['inbox']> {
  const terminals = (await inboxTerminals(io).catch(() => [] as string[])).slice(0, INBOXES_MAX);
  // Settled records too: the child's first message may have been delivered and moved out since.
  const inboxes = await Promise.all(terminals.map((t) => readAllRecords(io, t).catch(() => [])));
  return inboxes.flat();
}

/** Where each harness keeps the sessions of a working directory (Codex: by local date). */
function transcriptDirs(home: string, kind: string, cwd: string, sinceMs: number, nowMs: number): string[] {
  if (kind === 'claude') return [join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'))];
  if (kind === 'pi') {
    const slug = `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
    return [join(home, '.pi', 'agent', 'sessions', slug)];
  }
  if (kind === 'codex') {
    const dirs: string[] = [];
    // One directory per local day from the launch to now (a launch spans a day or two at most).
    for (let day = sinceMs - 86_400_000; day <= nowMs + 86_400_000 && dirs.length < 4; day += 86_400_000) {
      const d = new Date(day);
      const parts = [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, '0'));
      const dir = join(home, '.codex', 'sessions', ...parts);
      if (!dirs.includes(dir)) dirs.push(dir);
    }
    return dirs;
  }
  return [];
}

/** Whether a transcript written since the launch began names its task file: the child read its task. */
async function transcriptNames(home: string, launch: LaunchFacts, nowMs: number): Promise<boolean> {
  const needles = [launch.taskFile, JSON.stringify(launch.taskFile).slice(1, -1)];
  const candidates: Array<{ path: string; mtime: number }> = [];
  // The harness names the directory after the cwd it sees, which is the real path.
  const cwds = [...new Set([launch.cwd, await realpath(launch.cwd).catch(() => launch.cwd)])];
  const dirs = cwds.flatMap((cwd) => transcriptDirs(home, launch.kind, cwd, launch.createdMs, nowMs));
  for (const dir of [...new Set(dirs)]) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
      const path = join(dir, name);
      const stats = await lstat(path).catch(() => null);
      if (stats?.isFile() && stats.mtimeMs >= launch.createdMs)
        candidates.push({ path, mtime: stats.mtimeMs });
    }
  }
  candidates.sort((a, b) => b.mtime - a.mtime);
  for (const { path } of candidates.slice(0, TRANSCRIPTS_MAX)) {
    const head = await readHead(path).catch(() => '');
    if (needles.some((needle) => head.includes(needle))) return true;
  }
  return false;
}

/** The first bytes of a regular file; O_NONBLOCK, so a FIFO swapped in after the lstat never blocks. */
async function readHead(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) return '';
    const buffer = Buffer.alloc(TRANSCRIPT_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
