// The text of a message or a task, wherever it comes from: `--message TEXT`, the file
// `--message-file PATH` names, stdin (`--message-file -`), or a tool's argument. One bound (the
// inbox's MESSAGE_MAX_BYTES) and one set of one-line refusals for every source and every verb
// (`send`, `agent`, the MCP tools); the reading itself is service/inbox/message-source.ts. A task
// has a tighter limit of its own where it is written (agents/launch-files.ts).

import { DogsledError } from '../common/errors.js';
import { quoted, stripEscapes } from '../text/clean.js';
import { MESSAGE_MAX_BYTES } from './inbox.js';

/** The two flags that give a message's text; exactly one of them is set. */
export interface MessageFlags {
  message?: string | undefined;
  messageFile?: string | undefined;
}

export type MessageSource =
  | { from: 'flag'; text: string }
  | { from: 'file'; path: string }
  /** `--message-file -`. */
  | { from: 'stdin' };

/** Where the text comes from, or the refusal when both flags or neither are given. */
export function messageSource(flags: MessageFlags): MessageSource {
  if ((flags.message === undefined) === (flags.messageFile === undefined)) {
    throw new DogsledError('give the text with exactly one of --message and --message-file');
  }
  if (flags.message !== undefined) return { from: 'flag', text: flags.message };
  return flags.messageFile === '-' ? { from: 'stdin' } : { from: 'file', path: flags.messageFile as string };
}

/** The source as a refusal names it: `--message`, `--message-file "notes.md"`, `stdin`. */
export function sourceName(source: MessageSource): string {
  if (source.from === 'flag') return '--message';
  return source.from === 'stdin' ? 'stdin (--message-file -)' : `--message-file ${quoted(source.path)}`;
}

/** The refusal for text from `what` that went past the bound (`what` is already plain). */
export function oversize(what: string): DogsledError {
  return new DogsledError(`${what} is over the ${MESSAGE_MAX_BYTES}-byte limit`);
}

/**
 * Text read as bytes (a file, stdin), as text: refused when over the bound, when not UTF-8 (a
 * binary, or another encoding, would arrive as other characters than were written), or empty.
 */
export function messageFromBytes(bytes: Uint8Array, what: string): string {
  if (bytes.length > MESSAGE_MAX_BYTES) throw oversize(what);
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark as the file had it; it is stripped with the escapes on delivery.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new DogsledError(`${what} is not UTF-8 text`);
  }
  return checkedMessage(text, what);
}

/**
 * Text as given (a flag, a tool's argument, a file already decoded): refused when over the bound or
 * empty, that is nothing but whitespace once escape sequences are removed.
 */
export function checkedMessage(text: string, what: string): string {
  if (Buffer.byteLength(text, 'utf8') > MESSAGE_MAX_BYTES) throw oversize(what);
  if (stripEscapes(text).trim() === '') throw new DogsledError(`${what} is empty`);
  return text;
}
