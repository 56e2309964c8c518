// This process's arguments as the kernel holds their bytes (/proc/self/cmdline on Linux), for the
// checks that refuse an argument whose bytes are not UTF-8: Node decodes argv as UTF-8 and puts
// U+FFFD where a byte is bad, so only the raw copy tells `f\xff` from a real `f\uFFFD`.

import { readFile } from 'node:fs/promises';
import { OWN_CMDLINE_PATH } from './process-table.js';

/** Every word of this process's argv (Node's own options and the script included), or undefined where unreadable. */
export async function ownArgvWords(cmdline = OWN_CMDLINE_PATH): Promise<Buffer[] | undefined> {
  const raw = await readFile(cmdline).catch(() => undefined);
  if (raw === undefined) return undefined;
  const words: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 0) continue;
    words.push(raw.subarray(start, i));
    start = i + 1;
  }
  if (start < raw.length) words.push(raw.subarray(start));
  return words;
}
