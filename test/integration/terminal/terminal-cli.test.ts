// The herdr CLI transport against a scripted `herdr` on PATH that records its argv and answers as
// told: how port calls are spelled on the command line, and how exit codes and streams are read
// (stdout envelope on 0, stderr envelope on 1, plain text on 2).

import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliTransport } from '../../../service/terminal/herdr/herdr-cli.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { TerminalError } from '../../../service/terminal/terminal-errors.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let bin: string;
let argvLog: string;
let port: TerminalPort;

const workspace = {
  workspace_id: 'w1',
  number: 1,
  label: 'repo',
  focused: true,
  pane_count: 1,
  tab_count: 1,
  active_tab_id: 'w1:t1',
  agent_status: 'unknown',
};
const agent = {
  terminal_id: 'term_1',
  name: 'rev',
  agent: 'codex',
  agent_status: 'idle',
  workspace_id: 'w1',
  tab_id: 'w1:t1',
  pane_id: 'w1:p2',
  focused: false,
  interactive_ready: true,
  state_change_seq: 1,
};

/** Each case: the first words of the command, then the shell lines that answer it. */
const ANSWERS: [string, string][] = [
  [
    'workspace list',
    `echo '${JSON.stringify({ id: 'cli:workspace:list', result: { type: 'workspace_list', workspaces: [workspace] } })}'`,
  ],
  ['pane read', `printf 'line one\\nline two\\n'`],
  ['pane report-metadata', 'true'],
  ['pane run', 'true'],
  [
    'pane get',
    `echo '{"id":"cli:pane:get","error":{"code":"pane_not_found","message":"pane w1:p9 not found"}}' >&2; exit 1`,
  ],
  ['pane close', 'echo "Error: broken pipe" >&2; exit 1'],
  ['tab close', 'echo "unknown option: --bogus" >&2; exit 2'],
  [
    'agent start',
    `echo '${JSON.stringify({ id: 'cli:agent:start', result: { type: 'agent_started', agent, argv: ['codex', '-m', 'x'] } })}'`,
  ],
  ['agent wait', 'sleep 5'],
  ['workspace report-metadata', 'sleep 60 & echo $! > "$(dirname "$0")/../lingering.pid"'],
  ['machine list', `echo '{"machines":[{"id":"m1","label":"netcup","target":"me@netcup","enabled":true}]}'`],
  [
    '--machine netcup',
    `echo '${JSON.stringify({ id: 'cli:pane:list', result: { type: 'pane_list', panes: [] } })}'`,
  ],
];

async function writeShim(answers: [string, string][]) {
  const lines = [
    '#!/bin/sh',
    `printf '%s\\0' "$@" >> ${argvLog}`,
    `printf '\\n' >> ${argvLog}`,
    'case "$1 $2" in',
  ];
  for (const [words, body] of answers) lines.push(`  "${words}") ${body} ;;`);
  lines.push('  *) echo "unknown command: $1" >&2; exit 2 ;;', 'esac');
  await writeFile(join(bin, 'herdr'), `${lines.join('\n')}\n`);
  await chmod(join(bin, 'herdr'), 0o755);
}

/** The argv of each shim run so far. */
async function runs(): Promise<string[][]> {
  const text = await readFile(argvLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\0').slice(0, -1));
}

async function failure(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

beforeEach(async () => {
  dir = await tempDir('dogsled-cli-');
  bin = join(dir, 'bin');
  argvLog = join(dir, 'argv.log');
  await mkdir(bin);
  await writeShim(ANSWERS);
  port = await openTerminal({ env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir }, home: dir });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('selection', () => {
  it('falls back to the CLI when no socket is usable but a herdr binary reaches a server', async () => {
    expect(port.kind).toBe('herdr-cli');
    expect(port.why).toBe(`HERDR_SOCKET_PATH is not set; using ${join(bin, 'herdr')}`);
    expect(port.insideHerdr).toBe(false);
    expect((await runs())[0]).toEqual(['workspace', 'list']);
  });
});

describe('the CLI transport', () => {
  it('parses the stdout envelope of a successful command', async () => {
    const [only] = await port.listWorkspaces();
    expect(only).toMatchObject({ workspace_id: 'w1', label: 'repo' });
  });

  it('reads raw text from pane read and spells the source as the CLI does', async () => {
    const read = await port.readPane('w1:p2', { source: 'recent_unwrapped', lines: 5 });
    expect(read.text).toBe('line one\nline two\n');
    expect(read.source).toBe('recent_unwrapped');
    expect((await runs()).at(-1)).toEqual([
      'pane',
      'read',
      'w1:p2',
      '--source',
      'recent-unwrapped',
      '--lines',
      '5',
    ]);
  });

  it('spells a metadata patch as --token and --clear-token flags', async () => {
    const result = await port.reportPaneMetadata('w1:p2', {
      source: 'dogsled:state',
      tokens: { dogsled_state: 'review', dogsled_old: null },
      ttlMs: 120_000,
    });
    expect(result).toEqual({ applied: true });
    expect((await runs()).at(-1)).toEqual([
      'pane',
      'report-metadata',
      'w1:p2',
      '--source',
      'dogsled:state',
      '--token',
      'dogsled_state=review',
      '--clear-token',
      'dogsled_old',
      '--ttl-ms',
      '120000',
    ]);
  });

  it('types a line plus Enter with pane run, as one argument', async () => {
    await port.runLine('w1:p2', "echo 'a b'");
    expect((await runs()).at(-1)).toEqual(['pane', 'run', 'w1:p2', "echo 'a b'"]);
  });

  it('reads the stderr error envelope of exit 1 as a typed error', async () => {
    const error = await failure(port.getPane('w1:p9'));
    expect(error.code).toBe('pane_not_found');
    expect(error.message).toBe('herdr pane.get: pane w1:p9 not found');
  });

  it('keeps a non-JSON exit 1 as `other` and exit 2 as `usage`, each with its first line', async () => {
    const other = await failure(port.closePane('w1:p2'));
    expect(other.code).toBe('other');
    expect(other.message).toBe('herdr pane close: Error: broken pipe');
    const usage = await failure(port.closeTab('w1:t2'));
    expect(usage.code).toBe('usage');
    expect(usage.message).toBe('herdr tab close: unknown option: --bogus');
  });

  it('starts an agent through the CLI, which waits for readiness itself', async () => {
    const started = await port.startAgent({
      name: 'rev',
      kind: 'codex',
      paneId: 'w1:p2',
      args: ['-m', 'x'],
      timeoutMs: 60_000,
    });
    expect(started.agent.interactive_ready).toBe(true);
    expect(started.argv).toEqual(['codex', '-m', 'x']);
    expect((await runs()).at(-1)).toEqual([
      'agent',
      'start',
      'rev',
      '--kind',
      'codex',
      '--pane',
      'w1:p2',
      '--timeout',
      '60000',
      '--',
      '-m',
      'x',
    ]);
  });

  it('stops a CLI run at its deadline with a timeout error', async () => {
    const transport = new CliTransport(join(bin, 'herdr'), { PATH: '/usr/bin:/bin' }, [], 200);
    const error = await failure(transport.call('agent.wait', { target: 'rev' }));
    expect(error.code).toBe('timeout');
  });

  it('answers once herdr exits, even when something it started keeps its output open', async () => {
    const transport = new CliTransport(join(bin, 'herdr'), { PATH: '/usr/bin:/bin' }, [], 30_000);
    try {
      const call = transport.call('workspace.report_metadata', { workspace_id: 'w1', source: 'dogsled' });
      await expect(call).resolves.toEqual({ type: 'ok' });
    } finally {
      const pid = Number(await readFile(join(dir, 'lingering.pid'), 'utf8').catch(() => '0'));
      if (pid > 1) process.kill(pid, 'SIGKILL');
    }
  });

  it('calls a herdr binary that cannot be started unreachable', async () => {
    const transport = new CliTransport(join(dir, 'no-such-herdr'), { PATH: '/usr/bin:/bin' });
    const error = await failure(transport.call('workspace.list', {}));
    expect(error.code).toBe('unreachable');
    expect(error.message).toContain('cannot be run (ENOENT)');
  });

  it('refuses a method the CLI cannot express instead of guessing', async () => {
    const error = await failure(port.sendInput('w1:p2', { keys: ['C-c'] }));
    expect(error.code).toBe('needs_herdr');
  });
});

describe('machines', () => {
  it('lists Herdr 0.9 saved machines', async () => {
    expect(await port.machines()).toEqual([
      { id: 'm1', label: 'netcup', target: 'me@netcup', enabled: true },
    ]);
    expect((await runs()).at(-1)).toEqual(['machine', 'list', '--json']);
  });

  it('is null when Herdr has no machine verbs (exit 2, unknown command)', async () => {
    await writeShim(ANSWERS.filter(([words]) => words !== 'machine list'));
    expect(await port.machines()).toBeNull();
  });

  it('forwards every call of a machine port with --machine through the CLI', async () => {
    const remote = port.forMachine('netcup');
    expect(remote.kind).toBe('herdr-cli');
    expect(remote.machine).toBe('netcup');
    expect(await remote.listPanes()).toEqual([]);
    expect((await runs()).at(-1)).toEqual(['--machine', 'netcup', 'pane', 'list']);
  });
});
