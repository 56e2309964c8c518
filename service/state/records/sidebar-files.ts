// The board's and todos' files in the state dir: names keyed by a hash of a Herdr id (pane and tab
// ids hold `:` and are Herdr's to shape, so file names never depend on their spelling), the board
// registry under its lock, and the tolerant reader of Pi's todo publications, which are another
// program's files: a bad one reads as unavailable with its reason, never quarantined or fatal.

import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { BoardEntry, TodoLines } from '../../core/board/board-types.js';
import { messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { dirNames } from '../engine/dir-names.js';
import { NotRegularFile, openRegular } from '../engine/regular-file.js';
import { readState, updateState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import type { StatePaths } from '../paths.js';
import { BoardEntrySchema, TodoLinesSchema } from '../schemas/sidebar-schemas.js';

/** A todo publication larger than this is refused unread: pi-todo's sections are a few KiB. */
export const TODO_LINES_MAX_BYTES = 256 * 1024;

/**
 * 16 hex digits of SHA-256 (of the id's UTF-8): the name Pi and dogsled both derive from a pane or
 * tab id. Computed in JavaScript: the sidebar names its owner's todo file before its first frame, and
 * loading node:crypto there cost more than half of a bare Node start (52 M of 93 M instructions).
 */
export function idHash(id: string): string {
  return bytesToHex(sha256(utf8ToBytes(id))).slice(0, 16);
}

export function boardFile(paths: StatePaths, tabId: string): string {
  return join(paths.boards, `${idHash(tabId)}.json`);
}

export function todoLinesFile(paths: StatePaths, paneId: string): string {
  return join(paths.todoLines, `${idHash(paneId)}.json`);
}

/**
 * Which panes of `paneIds` have a file in todo-lines/ (by name; what it holds is readTodoLines'
 * to judge): one listing where a stat per pane would do, for the service's todos worker. A
 * missing directory means none; undefined when it cannot be listed, so each pane is read and
 * says why on its own.
 */
export async function panesWithTodoLines(
  paths: StatePaths,
  paneIds: readonly string[],
): Promise<Set<string> | undefined> {
  let names: string[];
  try {
    names = dirNames(paths.todoLines) ?? [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Set();
    return undefined;
  }
  const present = new Set(names);
  return new Set(paneIds.filter((id) => present.has(basename(todoLinesFile(paths, id)))));
}

export async function readBoardEntry(io: StateIO, tabId: string): Promise<BoardEntry | undefined> {
  return readState(boardFile(io.paths, tabId), BoardEntrySchema, io);
}

/**
 * Read-modify-write of a tab's board entry under its lock, held across the Herdr calls `fn` makes,
 * so two `board --open` in one tab never split twice. `next` undefined leaves the file as it is.
 */
export async function updateBoardEntry<R>(
  io: StateIO,
  tabId: string,
  fn: (current: BoardEntry | undefined) => Promise<{ result: R; next?: BoardEntry }>,
): Promise<R> {
  await mkdir(io.paths.boards, { recursive: true, mode: 0o700 });
  return updateState(boardFile(io.paths, tabId), BoardEntrySchema, io, fn);
}

export type TodoRead =
  | { kind: 'ok'; lines: TodoLines }
  | { kind: 'missing' }
  | { kind: 'unavailable'; reason: string };

/** Pi's publication for `paneId`, or why it cannot be used. Never blocks on a FIFO, never throws. */
export async function readTodoLines(paths: StatePaths, paneId: string): Promise<TodoRead> {
  const file = todoLinesFile(paths, paneId);
  let text: string;
  try {
    const handle = await openRegular(file);
    if (handle === undefined) return { kind: 'missing' };
    try {
      const { size } = await handle.stat();
      if (size > TODO_LINES_MAX_BYTES) {
        return { kind: 'unavailable', reason: `publication is ${size} bytes, over ${TODO_LINES_MAX_BYTES}` };
      }
      text = await handle.readFile('utf8');
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch (error) {
    if (error instanceof NotRegularFile) return { kind: 'unavailable', reason: `it is ${error.kind}` };
    return { kind: 'unavailable', reason: squeezedLine(messageOf(error), 200) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unavailable', reason: 'publication is not JSON' };
  }
  const parsed = TodoLinesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || 'publication';
    return { kind: 'unavailable', reason: squeezedLine(`${where}: ${issue?.message ?? 'invalid'}`, 200) };
  }
  if (parsed.data.pane !== paneId) {
    return { kind: 'unavailable', reason: `published for pane ${squeezedLine(parsed.data.pane, 40)}` };
  }
  return { kind: 'ok', lines: parsed.data };
}
