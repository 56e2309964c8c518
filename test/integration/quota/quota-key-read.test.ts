// The management key read on the one runner, against real commands standing in for `security`:
// output past the cap, a flood, a signal, an interruption and escapes on stderr each give one
// reason that names what happened and never quotes what the command printed on stdout.

import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type KeySource, readManagementKey } from '../../../service/quota/key.js';
import { tempDir } from '../../helpers/tree.js';

const SECRET = 'secret-key-value-42';
let dir: string;

beforeAll(async () => {
  dir = await tempDir('dogsled-key-read-');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A key source running `script` with sh, as the Keychain read runs `security`. */
async function source(name: string, script: string): Promise<KeySource> {
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
  return { kind: 'command', file, args: [], what: 'the test key command' };
}

const env = { HOME: '/nonexistent' };

describe('reading the management key', () => {
  test('a key is its stdout without the line break', async () => {
    expect(await readManagementKey(await source('ok', `echo ${SECRET}`), env)).toEqual({
      ok: true,
      key: SECRET,
    });
  });

  test('output past the cap is too long to be a key, even when the command then exits 0', async () => {
    const long = await source('long', `head -c 5000 /dev/zero | tr '\\0' a; echo`);
    expect(await readManagementKey(long, env)).toEqual({
      ok: false,
      reason: 'the test key command is unreadable: its output is too long to be a key',
    });
  });

  test('a command that never stops printing is stopped, and its output is too long to be a key', async () => {
    const flood = await source('flood', 'exec yes');
    expect(await readManagementKey(flood, env)).toEqual({
      ok: false,
      reason: 'the test key command is unreadable: its output is too long to be a key',
    });
  });

  test('a command killed by a signal names the signal', async () => {
    const killed = await source('killed', `printf '${SECRET}'; kill -KILL $$`);
    expect(await readManagementKey(killed, env)).toEqual({
      ok: false,
      reason: 'the test key command is unreadable: killed by SIGKILL',
    });
  });

  test('an interrupted read says so', async () => {
    const abort = new AbortController();
    abort.abort();
    expect(await readManagementKey(await source('never', 'sleep 30'), env, abort.signal)).toEqual({
      ok: false,
      reason: 'the test key command is unreadable: interrupted',
    });
  });

  test('a failure shows stderr as one clean line and never the stdout', async () => {
    const failing = await source(
      'failing',
      `printf '${SECRET}'; printf '\\033[31mnot found\\033[0m\\nin the keychain\\n' >&2; exit 44`,
    );
    const read = await readManagementKey(failing, env);
    expect(read).toEqual({
      ok: false,
      reason: 'the test key command is unreadable: exit 44: not found in the keychain',
    });
  });
});
