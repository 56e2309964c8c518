// Errors a user meets name the command they came from, and a config error names the file, the key,
// the type it expects and what the file holds instead: one line, exit 2.

import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type Sandbox, sandbox } from '../helpers/cli.js';

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
  ])('%j', async (args, line) => {
    const result = await runCli(args, box.env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')).toEqual([expect.stringContaining(line), '']);
    expect(result.stderr.startsWith(line)).toBe(true);
  });
});
