// The terminal port against the fake Herdr's test-only controls (`_fake.*`), which a real Herdr
// lacks: the request log (a listing is one request), injected faults, a forced-busy pane, saved
// machines on 0.9 and their absence on 0.8. The contract both share is terminal-contract.test.ts.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { TerminalError } from '../../../service/terminal/terminal-errors.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { tempDir } from '../../helpers/tree.js';

interface Backend {
  env: NodeJS.ProcessEnv;
  home: string;
  work: string;
  fake: FakeHerdr;
  stop(): Promise<void>;
}

async function fakeBackend(version?: string): Promise<Backend> {
  const root = await tempDir('dogsled-fake-');
  const home = join(root, 'home');
  const work = join(root, 'work');
  await Promise.all([home, work].map((path) => mkdir(path, { recursive: true })));
  const fake = await startFakeHerdr({ dir: root, ...(version ? { version } : {}), env: { HOME: home } });
  return {
    env: fake.env,
    home,
    work,
    fake,
    async stop() {
      await fake.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

describe('fake-only controls', () => {
  let b: Backend;
  let port: TerminalPort;

  beforeAll(async () => {
    b = await fakeBackend();
    port = await openTerminal({ env: b.env, home: b.home });
  }, 30_000);

  afterAll(async () => {
    await b?.stop();
  });

  it('takes one request per listing: session.snapshot and nothing else', async () => {
    await b.fake.call('_fake.calls.clear');
    await port.listAll();
    const { result } = await b.fake.call('_fake.calls.list');
    expect(result.calls.map((c: { method: string }) => c.method)).toEqual(['session.snapshot']);
  });

  it('hands back the same listing while Herdr answers the same bytes, and a fresh one after any change', async () => {
    const pane = (await port.createWorkspace({ cwd: b.work })).root_pane.pane_id;
    const a = await port.listAll();
    const same = await port.listAll();
    expect(same).toBe(a);
    // An agent reported (a message with escapes in it) changes the bytes: a new listing, as Herdr shows it.
    await port.reportAgent(pane, {
      source: 'test',
      agent: 'claude',
      state: 'working',
      message: 'x\u001b]0;t\u0007',
    });
    const changed = await port.listAll();
    expect(changed).not.toBe(a);
    expect(changed.panes.map((p) => p.pane_id)).toEqual(a.panes.map((p) => p.pane_id));
    expect(await port.listAll()).toBe(changed);
    // A garbled reply after a remembered one fails as always; the next good one is read afresh.
    await b.fake.call('_fake.fail_next', { method: 'session.snapshot', malformed: 'truncated' });
    expect((await failure(port.listAll())).code).toBe('protocol');
    expect(await port.listAll()).toEqual(changed);
  });

  it('turns injected faults into typed errors: garbage, truncation, a dropped connection, a slow reply', async () => {
    const pane = (await port.createWorkspace({ cwd: b.work })).root_pane.pane_id;
    const impatient = await openTerminal({ env: b.env, home: b.home, timeoutMs: 1_500 });
    const cases: [Record<string, unknown>, string, TerminalPort][] = [
      [{ malformed: 'garbage' }, 'protocol', port],
      [{ malformed: 'truncated' }, 'protocol', port],
      [{ malformed: 'close' }, 'protocol', port],
      [{ code: 'server_unavailable' }, 'server_unavailable', port],
      [{ delay_ms: 3_000 }, 'timeout', impatient],
    ];
    for (const [injection, code, client] of cases) {
      await b.fake.call('_fake.fail_next', { method: 'pane.get', ...injection });
      expect((await failure(client.getPane(pane))).code).toBe(code);
    }
    expect((await port.getPane(pane)).pane_id).toBe(pane);
  });

  it('refuses an agent start on a pane the fake marks busy, as agent_pane_busy', async () => {
    const pane = (await port.createWorkspace({ cwd: b.work })).root_pane.pane_id;
    await b.fake.call('_fake.pane.set_busy', { pane_id: pane, busy: true });
    const error = await failure(port.startAgent({ name: 'forced', kind: 'pi', paneId: pane }));
    expect(error.code).toBe('agent_pane_busy');
  });

  it('lists Herdr 0.9 saved machines and forwards calls to one with --machine', async () => {
    await b.fake.call('_fake.machines.set', {
      machines: [{ label: 'netcup', target: 'me@netcup', socket_path: b.fake.socketPath }],
    });
    expect(await port.machines()).toEqual([
      { id: 'm1', label: 'netcup', target: 'me@netcup', enabled: true, socket_path: b.fake.socketPath },
    ]);
    const remote = port.forMachine('netcup');
    expect(remote.machine).toBe('netcup');
    const local = (await port.listWorkspaces()).map((w) => w.workspace_id);
    expect((await remote.listWorkspaces()).map((w) => w.workspace_id)).toEqual(local);
  });

  it('has no machines on Herdr 0.8: machines() is null and forwarding is a usage error', async () => {
    const old = await fakeBackend('0.8.0');
    try {
      const oldPort = await openTerminal({ env: old.env, home: old.home });
      expect(oldPort.server?.version).toBe('0.8.0');
      expect(await oldPort.machines()).toBeNull();
      expect((await failure(oldPort.forMachine('netcup').listWorkspaces())).code).toBe('usage');
    } finally {
      await old.stop();
    }
  });

  it('refuses agents without Herdr with the exact one-line message', async () => {
    const headless = await openTerminal({
      env: { PATH: '/usr/bin:/bin' },
      home: b.home,
      commandName: 'agent',
    });
    const error = await failure(headless.startAgent({ name: 'x', kind: 'pi', paneId: 'w1:p1' }));
    expect(error.message).toBe(
      'agent needs Herdr or tmux (HERDR_SOCKET_PATH is not set and no herdr binary is on PATH)',
    );
  });
});
