// Errors a user meets name the command they came from, and a config error names the file, the key,
// the type it expects and what the file holds instead: one line, exit 2. A config path that is a
// FIFO or a directory is refused in one line, never waited on.

import { execFile, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

const execFileAsync = promisify(execFile);

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await box.cleanup();
});

describe('config errors', () => {
  it.each([
    ['status', ['status', '--line']],
    ['place', ['place', '--json']],
    ['run', ['run', '--', 'true']],
  ])('%s names itself, the file, the key, the type expected and what was found', async (name, args) => {
    await writeFile(box.configPath, 'free_core_fraction_min = "abc"\n');
    const result = await runCli(args, box.env);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `dogsled: ${name}: config ${box.configPath}: free_core_fraction_min: expected a number between 0 and 1, found the string "abc"\n`,
    });
  });
});

describe('a config path that is not a regular file', () => {
  it.each([
    ['a FIFO', (path: string) => execFileAsync('mkfifo', [path]), 'not a regular file'],
    ['a directory', (path: string) => mkdir(path), 'not a regular file'],
  ])('%s is one line, exit 2, and never blocks', async (_name, make, why) => {
    await make(box.configPath);
    const result = await runCli(['status', '--line'], box.env, { timeoutMs: 10_000 });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `dogsled: status: config ${box.configPath}: ${why}\n`,
    });
  });
});

describe('every error names its command', () => {
  it.each([
    [['wait', 'j_aaaaaaaaaaaa'], 'dogsled: wait: unknown job "j_aaaaaaaaaaaa"'],
    [['logs', 'j_aaaaaaaaaaaa'], 'dogsled: logs: unknown job "j_aaaaaaaaaaaa"'],
    [['stop', 'j_aaaaaaaaaaaa'], 'dogsled: stop: unknown job "j_aaaaaaaaaaaa"'],
    [['exec', 'j_aaaaaaaaaaaa', '--', 'true'], 'dogsled: exec: unknown job "j_aaaaaaaaaaaa"'],
    [['cancel', 't_aaaaaaaaaaaa'], 'dogsled: cancel: unknown ticket "t_aaaaaaaaaaaa"'],
    [['status', '--json', '--line'], 'dogsled: status: choose one of --json, --line and --brief'],
    [['status', '--lines'], "dogsled: status: unknown option '--lines'"],
    [['wait'], "dogsled: wait: missing required argument 'job'"],
    [['inbox', 'ack'], "dogsled: inbox ack: missing required argument 'ids'"],
    [
      ['status', '--terminal', 'vim'],
      "dogsled: status: option '--terminal <backend>' argument 'vim' is invalid",
    ],
    [['--terminal', 'vim', 'ps'], "dogsled: ps: option '--terminal <backend>' argument 'vim' is invalid"],
  ])('%j', async (args, line) => {
    const result = await runCli(args, box.env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')).toEqual([expect.stringContaining(line), '']);
    expect(result.stderr.startsWith(line)).toBe(true);
  });
});

// Commands print through fd 1 itself (cli/stdout.ts), not process.stdout: a reader that went away
// or a closed stdout ends the output, never the command with a stack trace.
describe('a stdout nobody reads', () => {
  it.each([
    ['status', '--json'],
    ['status', '--line'],
    ['profiles', '--json'],
  ])('%s %s exits 0 with nothing on stderr when its pipe was closed, or stdout itself', async (...args) => {
    const closedPipe = spawn(process.execPath, [CLI, ...args], {
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed long before the child has started Node, let alone printed.
    closedPipe.stdout.destroy();
    let stderr = '';
    closedPipe.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => closedPipe.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const closedFd = await execFileAsync('sh', ['-c', `exec "$0" "$@" >&-`, process.execPath, CLI, ...args], {
      env: box.env,
    });
    expect(closedFd.stderr).toBe('');
  });
});
