// The one reader of `--message`, `--message-file PATH` and stdin (`--message-file -`), which `send`
// and `agent` share: every source refuses an oversize, empty or non-UTF-8 text in one line naming
// it, a FIFO is read until its writer closes it (and refused past the bound without being drained),
// and a directory is refused as one. Then the same refusals through both commands, with nothing made.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_MAX_BYTES } from '../../../service/core/inbox/inbox.js';
import { type MessageIO, readMessage } from '../../../service/inbox/message-source.js';
import { CLI, type CliResult, type Sandbox, sandbox } from '../../helpers/cli.js';

const LIMIT = `over the ${MESSAGE_MAX_BYTES}-byte limit`;

let box: Sandbox;
let dir: string;

beforeAll(async () => {
  box = await sandbox();
  dir = join(box.root, 'inputs');
  await mkdir(dir);
  await writeFile(join(dir, 'huge.txt'), 'h'.repeat(MESSAGE_MAX_BYTES + 1));
  await writeFile(join(dir, 'limit.txt'), 'l'.repeat(MESSAGE_MAX_BYTES));
  await writeFile(join(dir, 'empty.txt'), '');
  await writeFile(join(dir, 'blank.txt'), ' \n\t\u001b[2J\u200b\n');
  await writeFile(join(dir, 'latin1.txt'), Buffer.from('caf\xe9\n', 'latin1'));
  await writeFile(join(dir, 'note.md'), '\ufeffnote: é 🐕\n');
  await mkdir(join(dir, 'a-directory'));
});

afterAll(async () => {
  for (const writer of writers) if (writer.exitCode === null && writer.signalCode === null) writer.kill();
  await box.cleanup();
});

const writers: ChildProcess[] = [];

/** A FIFO at `name`, with `sh -c script` writing into it in the background (its stdout is the FIFO). */
function fifo(name: string, script: string): string {
  const path = join(dir, name);
  spawnSync('mkfifo', [path]);
  // The writer blocks on the FIFO until a reader opens it; one a failed test never read is killed after.
  writers.push(spawn('sh', ['-c', `${script} > "$0"`, path], { stdio: 'ignore' }));
  return path;
}

function stdinOf(path: string): MessageIO {
  return { stdin: createReadStream(path) };
}

const noStdin: MessageIO = { stdin: Readable.from([]) };

describe('readMessage', () => {
  it('takes --message as it is, and refuses an oversize or empty one naming the flag', async () => {
    expect(await readMessage({ message: 'hello\nthere' }, noStdin)).toBe('hello\nthere');
    await expect(readMessage({ message: 'x'.repeat(MESSAGE_MAX_BYTES + 1) }, noStdin)).rejects.toThrow(
      `--message is ${LIMIT}`,
    );
    // Counted in UTF-8 bytes: 2 Mi "é" is 4 MiB, one more is over.
    await expect(readMessage({ message: 'é'.repeat(MESSAGE_MAX_BYTES / 2 + 1) }, noStdin)).rejects.toThrow(
      `--message is ${LIMIT}`,
    );
    await expect(readMessage({ message: ' \n\u001b[2J\u200b\t' }, noStdin)).rejects.toThrow(
      /^--message is empty$/,
    );
  });

  it('refuses a --message whose argument bytes were not UTF-8, and keeps a real U+FFFD', async () => {
    const cmdline = join(dir, 'cmdline');
    const words = (...list: Buffer[]) => Buffer.concat(list.flatMap((w) => [w, Buffer.from([0])]));
    await writeFile(
      cmdline,
      words(Buffer.from('node'), Buffer.from('dogsled.cjs'), Buffer.from('send'), Buffer.from([0x66, 0xff])),
    );
    await expect(readMessage({ message: 'f\uFFFD' }, { ...noStdin, cmdline })).rejects.toThrow(
      /^--message is not UTF-8 text$/,
    );
    await writeFile(
      cmdline,
      words(Buffer.from('send'), Buffer.concat([Buffer.from('--message='), Buffer.from([0x66, 0xff])])),
    );
    // `--message=…` is one argument: the value after `=` is what counts.
    await expect(readMessage({ message: 'f\uFFFD' }, { ...noStdin, cmdline })).rejects.toThrow(
      'not UTF-8 text',
    );
    await writeFile(cmdline, words(Buffer.from('send'), Buffer.from('f\uFFFD')));
    expect(await readMessage({ message: 'f\uFFFD' }, { ...noStdin, cmdline })).toBe('f\uFFFD');
  });

  it('reads a file whole up to the bound, byte for byte, and refuses one byte more', async () => {
    expect(await readMessage({ messageFile: join(dir, 'note.md') }, noStdin)).toBe('\ufeffnote: é 🐕\n');
    expect(await readMessage({ messageFile: join(dir, 'limit.txt') }, noStdin)).toHaveLength(
      MESSAGE_MAX_BYTES,
    );
    await expect(readMessage({ messageFile: join(dir, 'huge.txt') }, noStdin)).rejects.toThrow(
      /^--message-file ".*huge\.txt" is over the 4194304-byte limit$/,
    );
    // A device that never ends is refused at the bound, not read forever.
    await expect(readMessage({ messageFile: '/dev/zero' }, noStdin)).rejects.toThrow(
      `--message-file "/dev/zero" is ${LIMIT}`,
    );
  });

  it('refuses an empty file, a file that is not UTF-8, a directory and a missing file, naming it', async () => {
    const refusal = (name: string) => readMessage({ messageFile: join(dir, name) }, noStdin);
    await expect(refusal('empty.txt')).rejects.toThrow(/^--message-file ".*empty\.txt" is empty$/);
    await expect(refusal('blank.txt')).rejects.toThrow(/^--message-file ".*blank\.txt" is empty$/);
    await expect(refusal('latin1.txt')).rejects.toThrow(/^--message-file ".*latin1\.txt" is not UTF-8 text$/);
    await expect(refusal('a-directory')).rejects.toThrow(
      /^--message-file ".*a-directory": it is a directory \(EISDIR\)$/,
    );
    await expect(refusal('missing.txt')).rejects.toThrow(
      /^--message-file ".*missing\.txt": no such file or directory \(ENOENT\)$/,
    );
  });

  it('reads a FIFO until its writer closes it, and refuses one that runs past the bound', async () => {
    const note = fifo('note.fifo', "printf 'line one\\nline two\\n'");
    expect(await readMessage({ messageFile: note }, noStdin)).toBe('line one\nline two\n');
    const endless = fifo('endless.fifo', 'exec cat /dev/zero');
    await expect(readMessage({ messageFile: endless }, noStdin)).rejects.toThrow(
      /^--message-file ".*endless\.fifo" is over the 4194304-byte limit$/,
    );
    const latin1 = fifo('latin1.fifo', "printf 'caf\\351'");
    await expect(readMessage({ messageFile: latin1 }, noStdin)).rejects.toThrow('is not UTF-8 text');
  });

  it('reads stdin for --message-file -, with the same refusals, naming stdin', async () => {
    expect(await readMessage({ messageFile: '-' }, stdinOf(join(dir, 'note.md')))).toBe('\ufeffnote: é 🐕\n');
    expect(await readMessage({ messageFile: '-' }, stdinOf(fifo('in.fifo', "printf 'piped'")))).toBe('piped');
    const cases: Array<[string, RegExp]> = [
      ['huge.txt', /^stdin \(--message-file -\) is over the 4194304-byte limit$/],
      ['empty.txt', /^stdin \(--message-file -\) is empty$/],
      ['latin1.txt', /^stdin \(--message-file -\) is not UTF-8 text$/],
      ['a-directory', /^stdin \(--message-file -\): it is a directory \(EISDIR\)$/],
    ];
    for (const [name, refusal] of cases) {
      await expect(readMessage({ messageFile: '-' }, stdinOf(join(dir, name))), name).rejects.toThrow(
        refusal,
      );
    }
    const endless = fifo('endless-in.fifo', 'exec cat /dev/zero');
    await expect(readMessage({ messageFile: '-' }, stdinOf(endless))).rejects.toThrow(LIMIT);
  });

  it('takes exactly one of --message and --message-file', async () => {
    const both = readMessage({ message: 'a', messageFile: join(dir, 'note.md') }, noStdin);
    await expect(both).rejects.toThrow(/^give the text with exactly one of --message and --message-file$/);
    await expect(readMessage({}, noStdin)).rejects.toThrow('exactly one of');
  });
});

/** `dogsled ARGS` run by sh, so `\ooo` in `script`'s words become raw bytes and `<` redirects work. */
function dogsledSh(script: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const shell = `node="$0"; cli="$1"; dogsled() { "$node" "$cli" "$@"; }; ${script}`;
    const child = spawn('sh', ['-c', shell, process.execPath, CLI], {
      env: box.env,
      cwd: dir,
    });
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

const COMMANDS: Array<[string, string]> = [
  ['send', 'dogsled send someone'],
  ['agent', 'dogsled agent --kind pi --name child'],
];

describe.each(COMMANDS)('%s', (name, command) => {
  it.each([
    ['an oversize file', '--message-file huge.txt', `--message-file "huge.txt" is ${LIMIT}`],
    ['/dev/zero', '--message-file /dev/zero', `--message-file "/dev/zero" is ${LIMIT}`],
    ['an empty file', '--message-file empty.txt', '--message-file "empty.txt" is empty'],
    [
      'a file that is not UTF-8',
      '--message-file latin1.txt',
      '--message-file "latin1.txt" is not UTF-8 text',
    ],
    ['a directory', '--message-file a-directory', '--message-file "a-directory": it is a directory (EISDIR)'],
    [
      'a directory on stdin',
      '--message-file - < a-directory',
      'stdin (--message-file -): it is a directory (EISDIR)',
    ],
    ['an oversize stdin', '--message-file - < huge.txt', `stdin (--message-file -) is ${LIMIT}`],
    ['an empty stdin', '--message-file - < /dev/null', 'stdin (--message-file -) is empty'],
    [
      'bytes that are not UTF-8 in --message',
      `--message "$(printf 'caf\\351')"`,
      '--message is not UTF-8 text',
    ],
    ['an empty --message', "--message ' '", '--message is empty'],
  ])('refuses %s in one line, before anything is made', async (_what, flags, refusal) => {
    const result = await dogsledSh(`${command} ${flags}`);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: `dogsled: ${name}: ${refusal}\n` });
    expect(await readdir(box.state).catch(() => [])).toEqual([]);
  });

  it('refuses a FIFO that runs past the bound without draining it', async () => {
    fifo(`${name}.fifo`, 'exec cat /dev/zero');
    const result = await dogsledSh(`${command} --message-file ${name}.fifo`);
    expect(result.stderr).toBe(`dogsled: ${name}: --message-file "${name}.fifo" is ${LIMIT}\n`);
  });
});
