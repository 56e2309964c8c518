// A start Herdr never confirmed whose pane is gone, through `dogsled agent`, the fake Herdr and the
// fake agents: a child that left a sign of life (its done mark, a transcript naming its task file)
// started, and its launch and item say so; a pane closed before anything ran stays a failed launch,
// also when done.json is a FIFO and outbox.json a directory (neither blocks nor counts).

import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DoneFileSchema } from '../../../service/state/records/done-marks.js';
import { findTranscripts, readLaunches, waitForLaunch } from '../../fakes/agents/harness.js';
import { waitFor } from '../../helpers/wait.js';
import { agentCli, agentSuite, items, type Json, ok, onlyRecord, paneIds } from './agent-fixtures.js';

const suite = agentSuite();

/** A task whose child never reports to Herdr, so Herdr never confirms its start. */
function task(steps: unknown[]): string {
  return `Work.\n\`\`\`fake-agent\n${JSON.stringify({ steps, herdr_reports: false })}\n\`\`\`\n`;
}

async function doneMarks(): Promise<Json[]> {
  const text = await readFile(join(suite.box.state, 'done.json'), 'utf8').catch(() => null);
  return text === null ? [] : DoneFileSchema.parse(JSON.parse(text)).marks;
}

/** The pane of the one `agent.start` call made so far (the launch's own pane). */
async function startedPane(): Promise<string> {
  return waitFor(
    'the agent.start call',
    async () => {
      const calls = (await ok(suite.herdr, '_fake.calls.list', { method: 'agent.start' })).calls as Json[];
      return calls[0]?.params.pane_id as string | undefined;
    },
    { timeoutMs: 30_000 },
  );
}

describe('a start Herdr never confirmed, its pane gone', () => {
  it('started when the child marked done before its pane closed: the launch and item stay', async () => {
    // Never reporting its state, so Herdr never confirms it: only its pane's end stops the wait.
    const launched = agentCli(suite, [
      '--kind',
      'claude',
      '--name',
      'quick',
      '--json',
      '--message',
      task([{ run: 'dogsled done' }, { sleep_ms: 120_000 }]),
    ]);
    const mark = await waitFor('the done mark', async () => (await doneMarks())[0], { timeoutMs: 30_000 });
    await ok(suite.herdr, 'pane.close', { pane_id: mark.pane });
    const result = await launched;
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ name: 'quick', pane: mark.pane, launch: mark.launch });
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({
      state: 'started',
      attempts: 1,
      error: null,
      start_evidence: ['done mark', 'transcript'],
    });
    expect(record.started_ms).not.toBeNull();
    // Nothing typed again, and the owner's item is the launch's, not closed as a failed launch.
    expect(await readLaunches(suite.logDir)).toHaveLength(1);
    const [item] = await items(suite);
    expect(item).toMatchObject({ id: doc.item, launch: doc.launch, close_reason: null });
  });

  it('started when the user closed the pane of a child that had read its task (its transcript names it)', async () => {
    const launched = agentCli(suite, [
      '--kind',
      'claude',
      '--name',
      'reader',
      '--json',
      '--message',
      task([{ sleep_ms: 120_000 }]),
    ]);
    const launch = await waitForLaunch(suite.logDir);
    await waitFor(
      'the transcript',
      async () => ((await findTranscripts(suite.box.home, 'claude')).length > 0 ? true : undefined),
      { timeoutMs: 30_000 },
    );
    await ok(suite.herdr, 'pane.close', { pane_id: launch.herdr_pane_id });
    const result = await launched;
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(await onlyRecord(suite)).toMatchObject({ state: 'started', start_evidence: ['transcript'] });
  });

  it('fails when the pane closed before anything ran, unblocked by a FIFO done.json or a directory outbox.json', async () => {
    await mkdir(suite.box.state, { recursive: true });
    execFileSync('mkfifo', [join(suite.box.state, 'done.json')]);
    await mkdir(join(suite.box.state, 'outbox.json'));
    // The first start is held, then dropped unanswered: nothing is typed, and the pane goes meanwhile.
    await ok(suite.herdr, '_fake.fail_next', { method: 'agent.start', delay_ms: 1_500, malformed: 'close' });
    const launched = agentCli(suite, ['--kind', 'claude', '--name', 'never', '--message', task([])]);
    const pane = await startedPane();
    await ok(suite.herdr, 'pane.close', { pane_id: pane });
    const result = await launched;
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'dogsled: agent: cannot start agent never on local: the pane was closed or replaced since the last try\n',
    );
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ state: 'failed', attempts: 3, started_ms: null });
    expect(record.start_evidence).toBeUndefined();
    // The first try lost its reply; the pane was gone for the next two.
    expect(record.try_errors).toHaveLength(3);
    expect(record.try_errors?.slice(1)).toEqual([
      'the pane was closed or replaced since the last try',
      'the pane was closed or replaced since the last try',
    ]);
    expect(await readLaunches(suite.logDir)).toEqual([]);
    expect(await paneIds(suite.herdr)).not.toContain(pane);
    expect((await items(suite))[0]).toMatchObject({ close_reason: 'launch failed' });
  });
});
