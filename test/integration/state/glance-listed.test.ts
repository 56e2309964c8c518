// glanceListedText: the lean `ps --json`'s read of a job record its directory listing gave as a
// regular file, with no stat of its own. Whatever stands at the path when it is read (the listing
// may be older than the entry) is judged as glanceText judges it: a FIFO never blocks it, a
// directory, a symlink, a device or a file past its buffer are in doubt or read whole by the checked
// path, and JSON is read only from what a file holds.

import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { glanceJson, glanceListedText, glanceText } from '../../../service/state/engine/glance-file.js';
import { mkfifo } from '../../helpers/state-files.js';
import { tempDir } from '../../helpers/tree.js';

describe('glanceListedText', () => {
  test('reads a file as glanceText does, small, empty, multi-byte or past its buffer', async () => {
    const dir = await tempDir();
    const cases = {
      small: '{"version":1,"id":"j_a"}\n',
      empty: '',
      multi: `{"title":"${'é'.repeat(9000)}🙂"}`,
      large: `{"pad":"${'x'.repeat(70_000)}"}`,
    };
    for (const [name, text] of Object.entries(cases)) {
      writeFileSync(join(dir, name), text);
      expect(glanceListedText(join(dir, name))).toBe(text);
      expect(glanceListedText(join(dir, name))).toBe(glanceText(join(dir, name)));
    }
    // One after the other through the kept buffer: no text of a longer file before it shows through.
    expect(glanceListedText(join(dir, 'small'))).toBe(cases.small);
    expect(glanceListedText(join(dir, 'missing'))).toBeNull();
  });

  test('a directory, a symlink, a device or a FIFO in the entry’s place: in doubt, never blocking', async () => {
    const dir = await tempDir();
    mkdirSync(join(dir, 'a-dir.json'));
    writeFileSync(join(dir, 'target.json'), '{"version":1}');
    symlinkSync(join(dir, 'target.json'), join(dir, 'link.json'));
    await mkfifo(join(dir, 'fifo.json'));
    expect(glanceListedText(join(dir, 'a-dir.json'))).toBeUndefined();
    expect(glanceListedText(join(dir, 'link.json'))).toBeUndefined();
    expect(glanceJson(join(dir, 'a-dir.json'), true)).toBeUndefined();
    expect(glanceJson(join(dir, 'link.json'), true)).toBeUndefined();
    // A FIFO without a writer reads empty: no JSON, so the record is in doubt.
    expect(glanceListedText(join(dir, 'fifo.json'))).toBe('');
    expect(glanceJson(join(dir, 'fifo.json'), true)).toBeUndefined();
    // With a writer that has written nothing yet: the read fails at once rather than waiting.
    const writer = spawn('sh', ['-c', `exec 3>${JSON.stringify(join(dir, 'fifo.json'))}; sleep 30`]);
    try {
      let seen: string | null | undefined = '';
      // The writer's open completes once a reader has opened the FIFO: each glance is one.
      for (let i = 0; i < 200 && seen === ''; i++) {
        seen = glanceListedText(join(dir, 'fifo.json'));
        if (seen === '') await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen).toBeUndefined();
    } finally {
      writer.kill('SIGKILL');
    }
    // A device that never ends fills the buffer and is refused by the checked read.
    expect(glanceListedText('/dev/zero')).toBeUndefined();
    expect(glanceListedText('/dev/null')).toBe('');
  });
});
