// The terminal port's `reportAgent`, which the exec wrapper uses for its job pane: over the socket
// and through the herdr CLI (`herdr pane report-agent`) against the fake Herdr, and as a no-op that
// reports nothing headless.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessTerminal } from '../../../service/terminal/headless/headless.js';
import { HerdrTerminal } from '../../../service/terminal/herdr/herdr.js';
import { CliTransport } from '../../../service/terminal/herdr/herdr-cli.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';

let box: Sandbox;
let herdr: FakeHerdr;
let pane: string;

beforeAll(async () => {
  box = await sandbox();
  herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
  const created = await herdr.call('workspace.create', { cwd: box.root });
  pane = created.result.root_pane.pane_id;
});

afterAll(async () => {
  await herdr?.stop();
  await box?.cleanup();
});

async function reportedStates(): Promise<string[]> {
  const { result } = await herdr.call('_fake.calls.list', { method: 'pane.report_agent' });
  return result.calls.map((call: { params: { state: string } }) => call.params.state);
}

describe('reportAgent', () => {
  it('reports a lifecycle state over the socket, and Herdr shows the pane in that state', async () => {
    const port = await openTerminal({ env: herdr.env, home: box.home });
    expect(port.kind).toBe('herdr-socket');
    await herdr.call('_fake.calls.clear');
    const result = await port.reportAgent(pane, {
      source: 'dogsled:job',
      agent: 'dogsled-job',
      state: 'working',
    });
    expect(result).toEqual({ applied: true });
    expect(await reportedStates()).toEqual(['working']);
    expect(await port.getPane(pane)).toMatchObject({ agent_status: 'working' });
  });

  it('spells the report as herdr pane report-agent through the CLI', async () => {
    const shim = join(herdr.binDir, 'herdr');
    const port = new HerdrTerminal({
      transport: new CliTransport(shim, herdr.env),
      why: 'test',
      env: herdr.env,
    });
    await herdr.call('_fake.calls.clear');
    const result = await port.reportAgent(pane, {
      source: 'dogsled:job',
      agent: 'dogsled-job',
      state: 'blocked',
      message: 'exit 3',
      seq: 7,
    });
    expect(result).toEqual({ applied: true });
    const { result: calls } = await herdr.call('_fake.calls.list', { method: 'pane.report_agent' });
    expect(calls.calls.map((call: { params: unknown }) => call.params)).toEqual([
      {
        pane_id: pane,
        source: 'dogsled:job',
        agent: 'dogsled-job',
        state: 'blocked',
        message: 'exit 3',
        seq: 7,
      },
    ]);
  });

  it('reports nothing headless', async () => {
    const port: TerminalPort = new HeadlessTerminal({ why: 'no Herdr', env: {} });
    expect(
      await port.reportAgent('headless:1', { source: 'dogsled:job', agent: 'dogsled-job', state: 'idle' }),
    ).toEqual({ applied: false });
  });
});
