// history.jsonl end to end on real files: the service's pass writes each closed item once (its
// job's exit, its task's first line, its receipt), `dogsled history` filters it and sums it, and the
// file resists what a state file meets: a corrupt line (skipped, with a warning), a directory or a
// FIFO in its place (one line, never blocking), and a frozen process holding its lock (the writer
// waits, writes nothing, and marks nothing).
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import { historyEntry } from '../../../service/core/history/history-entry.js';
import { appendHistory } from '../../../service/history/history-file.js';
import { recordHistory } from '../../../service/history/history-pass.js';
import type { StateIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import { writeJobRecord } from '../../../service/state/records/job-records.js';
import { readItems, updateItems } from '../../../service/state/records/queue-items.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture, jobFixture } from '../../helpers/job-fixtures.js';
import { buildStateWorker, type HeldWorker, startWorker } from '../../helpers/state-worker-build.js';
import { tempDir } from '../../helpers/tree.js';

const MIN = 60_000;
let box: Sandbox;
let bundleDir: string;
let bundle: string;
const workers: HeldWorker[] = [];
const warnings: string[] = [];

beforeAll(async () => {
  bundleDir = await tempDir('dogsled-history-worker-');
  bundle = await buildStateWorker(bundleDir);
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});
beforeEach(async () => {
  box = await sandbox();
  await mkdir(join(box.state, 'launches'), { recursive: true });
  warnings.length = 0;
});
afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.kill('SIGCONT');
    worker.kill('SIGKILL');
    await worker.exited;
  }
  await box.cleanup();
});

function io(signal?: AbortSignal): StateIO {
  return { paths: statePaths(box.state), now: Date.now, warn: (line) => warnings.push(line), signal };
}

const receipt = {
  tokens: 18_666,
  usd: 0.0106,
  turns: 1,
  model: 'claude-sonnet-4-5',
  models: [],
  prices_as_of: '2025-11-24',
  wall_ms: 3 * MIN,
};

async function seed(): Promise<void> {
  const now = Date.now();
  await writeJobRecord(
    statePaths(box.state),
    jobFixture({
      id: 'j_tests',
      command: ['npm', 'test'],
      created_ms: now - 9 * MIN,
      started_ms: now - 8 * MIN,
      ended_ms: now - 6 * MIN,
      exit_code: 0,
    }),
  );
  await writeFile(
    join(box.state, 'launches', 'l_1.task.md'),
    '# Rewrite the lexer\n\n```fake-agent\n{}\n```\n',
  );
  const items: Item[] = [
    itemFixture({
      id: 'i_job',
      job: 'j_tests',
      command: ['npm', 'test'],
      created_ms: now - 9 * MIN,
      closed_ms: now - 6 * MIN,
      close_reason: 'job ended',
    }),
    itemFixture({
      id: 'i_lexer',
      kind: 'agent',
      command: undefined,
      name: 'lexer',
      harness: 'claude',
      launch: 'l_1',
      branch: 'feat/lexer',
      created_ms: now - 5 * MIN,
      closed_ms: now - 2 * MIN,
      close_reason: 'done',
      receipt,
    }),
    itemFixture({
      id: 'i_gone',
      kind: 'agent',
      command: undefined,
      name: 'ghost',
      harness: 'codex',
      owner: 'w9:p9',
      created_ms: now - 4 * MIN,
      closed_ms: now - MIN,
      close_reason: 'pane gone',
    }),
    itemFixture({ id: 'i_open', kind: 'agent', command: undefined, name: 'busy', created_ms: now - MIN }),
  ];
  await updateItems(io(), (file) => ({ result: undefined, next: { ...file, items } }));
}

const history = (args: string[]) => runCli(['history', ...args], box.env);

describe('the history pass and dogsled history', () => {
  it('writes each closed item once and shows, filters and sums it', async () => {
    await seed();
    expect(await recordHistory(io())).toBe(3);
    expect(await recordHistory(io())).toBe(0);
    const lines = (await readFile(join(box.state, 'history.jsonl'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(
      (await readItems(io())).items.filter((item) => item.history_ms != null).map((item) => item.id),
    ).toEqual(['i_job', 'i_lexer', 'i_gone']);

    const all = await history(['--json']);
    expect({ code: all.code, stderr: all.stderr }).toEqual({ code: 0, stderr: '' });
    const entries = JSON.parse(all.stdout).entries;
    expect(entries.map((e: { id: string }) => e.id)).toEqual(['i_job', 'i_lexer', 'i_gone']);
    expect(entries[0]).toMatchObject({
      kind: 'job',
      name: 'npm test',
      outcome: 'exit 0',
      ok: true,
      duration_ms: 2 * MIN,
    });
    expect(entries[1]).toMatchObject({
      name: 'lexer',
      summary: 'Rewrite the lexer',
      outcome: 'finished',
      receipt,
    });
    expect(entries[2]).toMatchObject({ outcome: 'pane gone', ok: false, receipt: null });

    const found = await history(['--json', '--search', 'LEXER', '--since', '1h', '--host', 'local']);
    expect(JSON.parse(found.stdout).entries.map((e: { id: string }) => e.id)).toEqual(['i_lexer']);
    const owned = await history(['--json', '--owner', 'w9:p9']);
    expect(JSON.parse(owned.stdout).entries.map((e: { id: string }) => e.id)).toEqual(['i_gone']);

    const stats = JSON.parse((await history(['--stats', '--json'])).stdout);
    expect(stats.total).toMatchObject({ runs: 3, ok: 2, tokens: 18_666, usd: 0.0106, unknown_usage: 1 });
    expect(stats.harness.map((r: { key: string }) => r.key).sort()).toEqual(['claude', 'codex', 'job']);

    const human = await history([]);
    expect(human.stdout).toMatch(/finished .* lexer \(claude\)\s+19k tok · \$0\.01\n/);
    expect(human.stdout).toMatch(/pane gone .* ghost \(codex\)\s+usage unknown\n/);
    const table = await history(['--stats']);
    expect(table.stdout).toMatch(/^all +3 +67% /m);
    expect(table.stdout).toContain('(+1 unknown)');

    const bad = await history(['--since', 'soon']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--since "soon": expected a duration back from now');
  });

  it('skips a corrupt line with a warning and still shows the rest', async () => {
    await seed();
    await recordHistory(io());
    await appendFile(join(box.state, 'history.jsonl'), '{"v":1,"id":\n\u001b[2Jnot json at all\n');
    const result = await history(['--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).entries).toHaveLength(3);
    expect(result.stderr).toMatch(/history\.jsonl: 2 lines that are not history entries skipped/);
  });

  it('refuses a directory or a FIFO in its place in one line, without blocking, and marks nothing', async () => {
    await seed();
    const file = join(box.state, 'history.jsonl');
    await mkdir(file);
    await expect(recordHistory(io())).rejects.toThrow(
      /history\.jsonl: it is a directory, not a regular file/,
    );
    const read = await history([]);
    expect(read.code).toBe(2);
    expect(read.stderr).toMatch(
      /^dogsled: history: cannot read .*history\.jsonl: it is a directory, not a regular file\n$/,
    );
    await rm(file, { recursive: true });
    execFileSync('mkfifo', [file]);
    await expect(recordHistory(io())).rejects.toThrow(/history\.jsonl/);
    expect((await history([])).code).toBe(2);
    expect((await readItems(io())).items.every((item) => item.history_ms == null)).toBe(true);
  });

  it('waits for a frozen holder of its lock, then writes nothing and marks nothing', async () => {
    await seed();
    const file = join(box.state, 'history.jsonl');
    const frozen = startWorker(bundle, ['hold', file]);
    workers.push(frozen);
    expect(await frozen.firstLine).toBe('acquired');
    frozen.kill('SIGSTOP');
    await expect(recordHistory(io(AbortSignal.timeout(600)))).rejects.toThrow();
    await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/);
    expect((await readItems(io())).items.every((item) => item.history_ms == null)).toBe(true);
    frozen.kill('SIGCONT');
    frozen.kill('SIGKILL');
    await frozen.exited;
    expect(await recordHistory(io())).toBe(3);
  });

  it('drops entries past 30 days and repeats of an id when it trims', async () => {
    const now = Date.now();
    const old = historyEntry(
      {
        id: 'i_old',
        kind: 'agent',
        host: 'local',
        owner: null,
        created_ms: now - 40 * 86_400_000,
        closed_ms: now - 31 * 86_400_000,
        close_reason: 'done',
      },
      undefined,
      null,
    );
    const fresh = { ...old, id: 'i_new', ended_ms: now - MIN };
    await appendHistory(io(), [old, fresh, fresh]);
    await appendHistory(io(), [{ ...fresh, id: 'i_next' }]);
    const ids = (await readFile(join(box.state, 'history.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    expect(ids).toEqual(['i_new', 'i_next']);
  });
});
