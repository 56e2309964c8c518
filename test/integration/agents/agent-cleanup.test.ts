// The pane rule of doctor, prune and the sweep honours what agent launches leave (spec, "Cleanup"):
// the empty shell of a final launch is removable at once, an unfinished launch or an open agent item
// keeps its pane, and an agent pane that called `dogsled done` is judged by its idle time instead of
// being kept for ever.

import { describe, expect, it } from 'vitest';

import { runCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { agentCli, agentSuite, doneTask, type Json, ok, onlyRecord, quickTask } from './agent-fixtures.js';

const suite = agentSuite();

async function paneEntry(pane: string): Promise<Json> {
  const result = await runCli(['doctor', '--json'], suite.env, { cwd: suite.scratch, timeoutMs: 30_000 });
  expect(result.code).toBe(0);
  const entry = JSON.parse(result.stdout).panes.find((p: Json) => p.pane === pane);
  expect(entry).toBeDefined();
  return entry;
}

describe('the pane rule and agent launches', () => {
  it('the empty shell a failed launch left is removable: its launch is final', async () => {
    for (let i = 0; i < 3; i++) {
      await ok(suite.herdr, '_fake.fail_next', { method: 'agent.start', code: 'internal_error' });
    }
    const result = await agentCli(suite, ['--kind', 'pi', '--name', 'gone', '--message', quickTask()]);
    expect(result.code).toBe(2);
    const record = await onlyRecord(suite);
    expect(record.state).toBe('failed');
    const entry = await paneEntry(record.pane as string);
    expect(entry).toMatchObject({ removable: true });
    expect(entry.reason).toBe(`empty sh prompt; its launch ${record.id} is final`);
  });

  it('a started child is kept while its item is open', async () => {
    const result = await agentCli(suite, [
      '--kind',
      'claude',
      '--name',
      'alive',
      '--json',
      '--message',
      quickTask(),
    ]);
    const { pane } = JSON.parse(result.stdout);
    const entry = await paneEntry(pane);
    expect(entry).toMatchObject({ removable: false });
    expect(entry.reason).toMatch(/^claude is (idle|done) and has not called dogsled done$/);
  });

  it('a child that called dogsled done is judged by the service observing it idle', async () => {
    const result = await agentCli(suite, [
      '--kind',
      'claude',
      '--name',
      'finished',
      '--json',
      '--message',
      doneTask('Bye.', false),
    ]);
    const { pane } = JSON.parse(result.stdout);
    const entry = await waitFor('the done mark seen by doctor', async () => {
      const found = await paneEntry(pane);
      return found.reason.includes('called dogsled done') ? found : undefined;
    });
    expect(entry).toMatchObject({ removable: false });
    expect(entry.reason).toMatch(
      /^claude called dogsled done; the service has not (yet seen it idle|observed it)/,
    );
  });
});
