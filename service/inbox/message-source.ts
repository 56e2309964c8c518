// Reads a message's text from where the flags say (core/inbox/message-text.ts): the flag itself, a
// file, or stdin for `--message-file -`, for `send` and `agent` alike. A file or stdin is read only
// up to one byte past the bound, so /dev/zero or a runaway pipe is refused without being read to
// its end; a FIFO (`--message-file <(git diff)`) is read like stdin, until its writer closes it.
// Bytes that are not UTF-8 are refused from every source: in a file or on stdin by decoding them,
// in `--message` by the argument's raw bytes (Node would have read them as U+FFFD).

import { isUtf8 } from 'node:buffer';
import { fstatSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { DogsledError, fileErrorText } from '../core/common/errors.js';
import { MESSAGE_MAX_BYTES } from '../core/inbox/inbox.js';
import {
  checkedMessage,
  type MessageFlags,
  type MessageSource,
  messageFromBytes,
  messageSource,
  oversize,
  sourceName,
} from '../core/inbox/message-text.js';
import { ownArgvWords } from '../process/own-argv.js';

export interface MessageIO {
  /** process.stdin, or a test's stream. */
  stdin: AsyncIterable<Uint8Array | string>;
  /** The descriptor under `stdin` (0), to refuse a directory: Node's stdin reads one as empty. */
  stdinFd?: number;
  /** Where this process's raw argv is (a test's copy); default /proc/self/cmdline. */
  cmdline?: string;
}

/** The text `flags` give, read and checked; every refusal is one line naming its source. */
export async function readMessage(flags: MessageFlags, io: MessageIO): Promise<string> {
  const source = messageSource(flags);
  const what = sourceName(source);
  if (source.from === 'flag') {
    if (await undecodable(source.text, io.cmdline)) throw new DogsledError(`${what} is not UTF-8 text`);
    return checkedMessage(source.text, what);
  }
  if (source.from === 'stdin' && io.stdinFd !== undefined && isDirectory(io.stdinFd)) {
    throw new DogsledError(`${what}: it is a directory (EISDIR)`);
  }
  const bytes =
    source.from === 'stdin' ? await readStream(io.stdin, what) : await readFileBounded(source, what);
  return messageFromBytes(bytes, what);
}

/**
 * Whether the flag's text came from an argument whose bytes are not UTF-8: an argv word that is not
 * and decodes to it (`--message T`, or `--message=T`). Only text holding U+FFFD can hide one; where
 * the raw argv cannot be read (macOS), the text is taken as it is.
 */
async function undecodable(text: string, cmdline: string | undefined): Promise<boolean> {
  if (!text.includes('\uFFFD')) return false;
  const words = (await ownArgvWords(cmdline)) ?? [];
  return words.some((word) => {
    if (isUtf8(word)) return false;
    const decoded = word.toString('utf8');
    return decoded === text || decoded.endsWith(`=${text}`);
  });
}

function isDirectory(fd: number): boolean {
  try {
    return fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

async function readStream(stream: MessageIO['stdin'], what: string): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      // Leaving the loop ends the stream: the rest is never read.
      if (size > MESSAGE_MAX_BYTES) throw oversize(what);
      parts.push(buffer);
    }
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    throw new DogsledError(`${what}: ${fileErrorText(error)}`);
  }
  return Buffer.concat(parts);
}

async function readFileBounded(
  source: Extract<MessageSource, { from: 'file' }>,
  what: string,
): Promise<Buffer> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(source.path, 'r');
  } catch (error) {
    throw new DogsledError(`${what}: ${fileErrorText(error)}`);
  }
  try {
    return await readStream(handle.createReadStream({ autoClose: false }), what);
  } finally {
    await handle.close();
  }
}
