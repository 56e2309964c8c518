// An argument whose bytes are not UTF-8 is refused in one line before anything is created: Node
// would decode `$'f\xff'` as "f\uFFFD", and the job would act on another name. A valid UTF-8
// argument that merely looks unusual (U+FFFD itself, combining marks, emoji) still runs as given.

import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { undecodableArgument } from '../../../service/jobs/command-check.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { CLI, type CliResult, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
let lock: ServiceLock;

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
});

afterEach(async () => {
  await lock.release();
  await box.cleanup();
});

/**
 * Runs dogsled with `args`, where `\ooo` octal escapes become raw bytes: a shell builds them, since
 * Node can only pass UTF-8 to a child. Returns what `dogsled` printed and its status.
 */
function runWithBytes(args: string[]): Promise<CliResult> {
  const words = args.map(
    (arg, i) => `a${i}=$(printf 'x${arg.replaceAll("'", "'\\''")}x'); a${i}=\${a${i}#x}; a${i}=\${a${i}%x}`,
  );
  const argv = args.map((_, i) => `"$a${i}"`).join(' ');
  const script = `${words.join('; ')}; exec "$0" "$1" ${argv}`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script, process.execPath, CLI], { env: box.env, cwd: box.root });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function jobFiles(): Promise<string[]> {
  return readdir(join(box.state, 'jobs')).catch(() => []);
}

describe('arguments that are not UTF-8', () => {
  it('are refused in one line, exit 2, before a job or ticket exists', async () => {
    const target = join(box.root, 'f\uFFFD');
    await writeFile(target, 'the name Node would decode the bytes to\n');
    const result = await runWithBytes(['run', '--wait', '--cwd', box.root, '--', 'rm', 'f\\377']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      'dogsled: run: argument "f\\xff" is not valid UTF-8: job arguments must be text ' +
        "(a shell can build such bytes: printf '\\377' inside sh -c)\n",
    );
    expect(await jobFiles()).toEqual([]);
    // The other name is untouched.
    expect(await readdir(box.root)).toContain('f\uFFFD');
  });

  it('are refused in a flag value too (a --cwd would name another directory)', async () => {
    const result = await runWithBytes(['run', '--cwd', 'd\\303\\050', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: run: argument "d\\xc3\(" is not valid UTF-8: /);
    expect(await jobFiles()).toEqual([]);
  });

  it('a valid argument that only looks unusual still runs, byte for byte', async () => {
    const unusual = ['\uFFFD', 'e\u0301', '🦀', '\u00ff'];
    const result = await runCli(
      ['run', '--wait', '--cwd', box.root, '--', 'sh', '-c', 'printf "[%s]" "$@"', 'sh', ...unusual],
      box.env,
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toBe(unusual.map((a) => `[${a}]`).join(''));
  });
});

describe('undecodableArgument', () => {
  it('reads the raw argv only when an argument holds U+FFFD, and names the bad bytes', async () => {
    const cmdline = join(box.root, 'cmdline');
    const raw = (words: Buffer[]) => Buffer.concat(words.flatMap((w) => [w, Buffer.from([0])]));
    await writeFile(
      cmdline,
      raw([
        Buffer.from('node'),
        Buffer.from('--flag'),
        Buffer.from('dogsled.mjs'),
        Buffer.from('run'),
        Buffer.from([0x66, 0xff]),
      ]),
    );
    expect(await undecodableArgument(['run', 'f\uFFFD'], cmdline)).toBe('"f\\xff"');
    // A genuine U+FFFD in the raw bytes is text.
    await writeFile(cmdline, raw([Buffer.from('node'), Buffer.from('x.mjs'), Buffer.from('f\uFFFD')]));
    expect(await undecodableArgument(['f\uFFFD'], cmdline)).toBeUndefined();
    // No suspect argument: the file is never read (it does not even exist).
    expect(await undecodableArgument(['plain', 'ü'], join(box.root, 'missing'))).toBeUndefined();
    // A suspect argument whose raw bytes cannot be read, or do not match, is refused.
    expect(await undecodableArgument(['f\uFFFD'], join(box.root, 'missing'))).toBe('"f\\xef\\xbf\\xbd"');
  });
});
