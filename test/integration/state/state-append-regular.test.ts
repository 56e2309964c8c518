// Appending only to a regular file (a job log, samples.jsonl): created 0600 when missing, appended
// to when present, and a FIFO (with or without a reader), a directory or a device in its place is one
// line naming it, never a blocked open and never a write into it.

import { execFileSync } from 'node:child_process';
import { closeSync, constants, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rm, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAppendRegular, openAppendRegularNow } from '../../../service/state/engine/regular-file.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('dogsled-append-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each opener with an append through what it opened: the async one and the synchronous one. */
const OPENERS = [
  {
    name: 'openAppendRegular',
    open: async (path: string, mode: number) => (await openAppendRegular(path, mode)).close(),
    append: async (path: string, text: string) => {
      const handle = await openAppendRegular(path, 0o600);
      try {
        await handle.appendFile(text);
      } finally {
        await handle.close();
      }
    },
  },
  {
    name: 'openAppendRegularNow',
    open: async (path: string, mode: number) => closeSync(openAppendRegularNow(path, mode)),
    append: async (path: string, text: string) => {
      const fd = openAppendRegularNow(path, 0o600);
      try {
        writeFileSync(fd, text);
      } finally {
        closeSync(fd);
      }
    },
  },
];

describe.each(OPENERS)('$name', ({ open: openAppend, append }) => {
  it('creates a missing file with the mode given, and appends to one that exists', async () => {
    const file = join(dir, 'job.log');
    await append(file, 'one\n');
    await append(file, 'two\n');
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses a FIFO nobody reads without blocking', async () => {
    const fifo = join(dir, 'fifo.log');
    execFileSync('mkfifo', [fifo]);
    await expect(openAppend(fifo, 0o600)).rejects.toThrow(
      `cannot write ${fifo}: no such device or address (ENXIO)`,
    );
  });

  it('refuses a FIFO someone reads, and writes nothing into it', async () => {
    const fifo = join(dir, 'fifo.log');
    execFileSync('mkfifo', [fifo]);
    const reader = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      await expect(openAppend(fifo, 0o600)).rejects.toThrow(
        `cannot write ${fifo}: it is a FIFO, not a regular file`,
      );
      const { bytesRead } = await reader.read(Buffer.alloc(16), 0, 16, null).catch(() => ({ bytesRead: 0 }));
      expect(bytesRead).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('refuses a directory and a device, each in one line', async () => {
    const directory = join(dir, 'dir.log');
    await mkdir(directory);
    await expect(openAppend(directory, 0o600)).rejects.toThrow(
      `cannot write ${directory}: illegal operation on a directory (EISDIR)`,
    );
    const device = join(dir, 'null.log');
    await symlink('/dev/null', device);
    await expect(openAppend(device, 0o600)).rejects.toThrow(
      `cannot write ${device}: it is a character device, not a regular file`,
    );
  });

  it('names a path with escapes in it as one clean line', async () => {
    const odd = join(dir, 'bad\u001b[31m\nname');
    await mkdir(odd);
    const error = await openAppend(odd, 0o600).catch((e: Error) => e);
    expect((error as Error).message).not.toMatch(/[\u0000-\u001f]/);
  });
});
