// The fake Herdr's socket protocol and layout model (CONTRACT §2, §9.3 items 1-5): framing, the
// empty-id invalid_request rule, ids, records, close semantics with their events, pane exit,
// layout/swap/ratio, input and reads, failure injection, and that stop() leaves nothing behind.

import { readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: records from the fake are plain JSON, checked by the assertions
type Json = any;

import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

let dir: string;
let herdr: FakeHerdr;

beforeAll(async () => {
  dir = await tempDir('fh-proto-');
  herdr = await startFakeHerdr({ dir, env: { HOME: dir } });
});

afterAll(async () => {
  await herdr?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Writes raw bytes on one connection and returns everything the server sent before closing. */
function raw(text: string, { end = false }: { end?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(herdr.socketPath);
    let out = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => (end ? socket.end(text) : socket.write(text)));
    socket.on('data', (chunk: string) => {
      out += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
  });
}

async function ok(method: string, params: Record<string, unknown> = {}) {
  const response = await herdr.call(method, params);
  if (!response.result) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
  return response.result;
}

async function events(event: string) {
  return (await ok('_fake.events.list', { event })).events as Array<{ event: string; data: Json }>;
}

describe('framing', () => {
  it('answers one request per connection and ignores a pipelined second line', async () => {
    const out = await raw(
      `${JSON.stringify({ id: 'a', method: 'ping', params: {} })}\n${JSON.stringify({ id: 'b', method: 'ping', params: {} })}\n`,
    );
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      id: 'a',
      result: { type: 'pong', version: '0.9.5', protocol: 20 },
    });
  });

  it('answers unparseable lines, unknown methods, omitted params and mistyped params with an empty id', async () => {
    const cases = [
      'not json\n',
      `${JSON.stringify({ id: 'x', method: 'no.such_method', params: {} })}\n`,
      `${JSON.stringify({ id: 'x', method: 'ping' })}\n`,
      `${JSON.stringify({ id: 'x', method: 'pane.get', params: {} })}\n`,
      `${JSON.stringify({ id: 'x', method: 'pane.get', params: { pane_id: 7 } })}\n`,
      `${JSON.stringify({ id: 'x', method: 'pane.split', params: { direction: 'left' } })}\n`,
    ];
    for (const line of cases) {
      const response = JSON.parse(await raw(line));
      expect(response.id).toBe('');
      expect(response.error.code).toBe('invalid_request');
    }
  });

  it('takes a request that ends at end of stream without a newline', async () => {
    const out = await raw(JSON.stringify({ id: 'eof', method: 'ping', params: {} }), { end: true });
    expect(JSON.parse(out)).toMatchObject({ id: 'eof', result: { type: 'pong' } });
  });
});

describe('ids, records and close semantics', () => {
  it('numbers workspaces, tabs and panes monotonically and never reuses a closed pane id', async () => {
    const created = await ok('workspace.create', { cwd: dir, label: 'alpha' });
    expect(created.type).toBe('workspace_created');
    const ws = created.workspace.workspace_id as string;
    expect(ws).toMatch(/^w[1-9A-Z0]+$/);
    expect(created.tab.tab_id).toBe(`${ws}:t1`);
    expect(created.root_pane.pane_id).toBe(`${ws}:p1`);
    expect(created.root_pane.terminal_id).toMatch(/^term_[0-9a-f]+$/);
    expect(created.root_pane).toMatchObject({
      workspace_id: ws,
      tab_id: `${ws}:t1`,
      cwd: dir,
      agent_status: 'unknown',
    });
    expect(created.root_pane).not.toHaveProperty('agent');
    for (const value of Object.values(created.root_pane)) expect(value).not.toBeNull();

    const second = await ok('pane.split', { target_pane_id: `${ws}:p1`, direction: 'right', ratio: 0.99 });
    expect(second.pane.pane_id).toBe(`${ws}:p2`);
    await ok('pane.close', { pane_id: `${ws}:p2` });
    const third = await ok('pane.split', { target_pane_id: `${ws}:p1`, direction: 'down' });
    expect(third.pane.pane_id).toBe(`${ws}:p3`);

    const tab = await ok('tab.create', { workspace_id: ws, label: 'agents' });
    expect(tab.tab).toMatchObject({ tab_id: `${ws}:t2`, label: 'agents', number: 2 });
    expect(tab.root_pane.pane_id).toBe(`${ws}:p4`);
    const info = (await ok('workspace.get', { workspace_id: ws })).workspace;
    expect(info).toMatchObject({ label: 'alpha', pane_count: 3, tab_count: 2, active_tab_id: `${ws}:t1` });
  });

  it('clamps the split ratio to 0.1-0.9 and keeps the new pane as the second child', async () => {
    const { workspace } = await ok('workspace.create', { cwd: dir });
    const ws = workspace.workspace_id;
    await ok('pane.split', { target_pane_id: `${ws}:p1`, direction: 'right', ratio: 0.02 });
    const { layout } = await ok('pane.layout', { pane_id: `${ws}:p1` });
    expect(layout.splits).toEqual([
      { id: 'split_0_root', direction: 'right', ratio: 0.1, rect: { x: 0, y: 0, width: 200, height: 50 } },
    ]);
    expect(layout.panes.map((p: Json) => [p.pane_id, p.rect.x, p.rect.width])).toEqual([
      [`${ws}:p1`, 0, 20],
      [`${ws}:p2`, 20, 180],
    ]);

    const swapped = await ok('pane.swap', { pane_id: `${ws}:p2`, direction: 'left' });
    expect(swapped.swap).toMatchObject({
      changed: true,
      source_pane_id: `${ws}:p2`,
      target_pane_id: `${ws}:p1`,
    });
    expect(swapped.swap.layout.panes[0].pane_id).toBe(`${ws}:p2`);
    const noNeighbour = await ok('pane.swap', { pane_id: `${ws}:p2`, direction: 'up' });
    expect(noNeighbour.swap).toMatchObject({ changed: false, reason: 'no_neighbor' });

    const ratio = await ok('layout.set_split_ratio', { pane_id: `${ws}:p2`, path: [], ratio: 0.19 });
    expect(ratio.layout.root).toMatchObject({ type: 'split', ratio: 0.19, first: { pane_id: `${ws}:p2` } });
    const missing = await herdr.call('layout.set_split_ratio', {
      pane_id: `${ws}:p2`,
      path: [true],
      ratio: 0.5,
    });
    expect(missing.error.code).toBe('split_not_found');
  });

  it('removes an emptied tab without tab_closed and closes the workspace with its last pane', async () => {
    const { workspace } = await ok('workspace.create', { cwd: dir });
    const ws = workspace.workspace_id;
    const { tab } = await ok('tab.create', { workspace_id: ws });
    await ok('pane.close', { pane_id: `${ws}:p2` });
    expect((await herdr.call('tab.list', { workspace_id: ws })).result.tabs).toHaveLength(1);
    expect((await events('tab_closed')).some((e) => e.data.tab_id === tab.tab_id)).toBe(false);
    expect((await events('pane_closed')).some((e) => e.data.pane_id === `${ws}:p2`)).toBe(true);

    await ok('pane.close', { pane_id: `${ws}:p1` });
    expect((await herdr.call('workspace.get', { workspace_id: ws })).error.code).toBe('workspace_not_found');
    expect((await herdr.call('pane.get', { pane_id: `${ws}:p1` })).error.code).toBe('pane_not_found');
    const closed = await events('workspace_closed');
    expect(closed.find((e) => e.data.workspace_id === ws)?.data).toMatchObject({ type: 'workspace_closed' });
  });

  it('closes the workspace when its only tab is closed, with tab_closed then workspace_closed', async () => {
    const { workspace, tab } = await ok('workspace.create', { cwd: dir });
    await ok('tab.close', { tab_id: tab.tab_id });
    const all = (await ok('_fake.events.list')).events as Array<{ event: string; data: Json }>;
    const order = all
      .filter((e) => e.data.tab_id === tab.tab_id || e.data.workspace_id === workspace.workspace_id)
      .map((e) => e.event)
      .filter((name) => name.endsWith('closed'));
    expect(order).toEqual(['tab_closed', 'workspace_closed']);
  });

  it('removes a pane whose shell exits, closing its workspace when it was the last one', async () => {
    const { workspace, root_pane } = await ok('workspace.create', { cwd: dir });
    await ok('pane.send_input', { pane_id: root_pane.pane_id, text: 'exit', keys: ['Enter'] });
    await waitFor('the root pane gone', async () =>
      (await herdr.call('pane.get', { pane_id: root_pane.pane_id })).error?.code === 'pane_not_found'
        ? true
        : undefined,
    );
    expect((await events('pane_exited')).some((e) => e.data.pane_id === root_pane.pane_id)).toBe(true);
    expect((await herdr.call('workspace.get', { workspace_id: workspace.workspace_id })).error.code).toBe(
      'workspace_not_found',
    );
  });

  it('kills a pane process on request and removes only that pane', async () => {
    const { workspace, root_pane } = await ok('workspace.create', { cwd: dir });
    const { pane } = await ok('pane.split', { target_pane_id: root_pane.pane_id, direction: 'down' });
    await ok('_fake.pane.exit', { pane_id: pane.pane_id });
    expect((await herdr.call('pane.get', { pane_id: pane.pane_id })).error.code).toBe('pane_not_found');
    expect((await ok('workspace.get', { workspace_id: workspace.workspace_id })).workspace.pane_count).toBe(
      1,
    );
  });
});

describe('pane processes', () => {
  it('runs a real shell with the Herdr environment and reads its output without escapes', async () => {
    const { root_pane } = await ok('workspace.create', {
      cwd: dir,
      env: { EXTRA_VAR: 'x1', HERDR_ENV: 'no' },
    });
    const pane = root_pane.pane_id;
    await ok('pane.send_input', {
      pane_id: pane,
      text: 'printf "\\033[31m%s\\033[0m|%s|%s|%s\\n" "$HERDR_PANE_ID" "$HERDR_ENV" "$EXTRA_VAR" "$TERM"',
      keys: ['Enter'],
    });
    const expected = `${pane}|1|x1|xterm-256color`;
    const text = await waitFor('the expected text in the pane', async () => {
      const { read } = await ok('pane.read', { pane_id: pane, source: 'recent', lines: 5 });
      return read.text.includes(expected) ? read.text : undefined;
    });
    expect(text).not.toContain('\u001b');
    const ansi = (await ok('pane.read', { pane_id: pane, source: 'recent', format: 'ansi' })).read;
    expect(ansi.text).toContain('\u001b[31m');
    const info = (await ok('pane.process_info', { pane_id: pane })).process_info;
    expect(info.shell_pid).toBe(info.foreground_process_group_id);
    expect(info.foreground_processes).toEqual([expect.objectContaining({ pid: info.shell_pid, name: 'sh' })]);
  });

  it('rejects unknown keys without typing anything', async () => {
    const { root_pane } = await ok('workspace.create', { cwd: dir });
    const response = await herdr.call('pane.send_input', {
      pane_id: root_pane.pane_id,
      text: 'echo no',
      keys: ['Hyper+Q'],
    });
    expect(response.error.code).toBe('invalid_key');
  });
});

describe('metadata and notifications', () => {
  it('patches pane tokens: null clears, omitted keys stay, stale seq is ignored, TTL expires', async () => {
    const { root_pane, workspace } = await ok('workspace.create', { cwd: dir });
    const pane = root_pane.pane_id;
    const report = (params: Record<string, unknown>) =>
      herdr.call('pane.report_metadata', { pane_id: pane, source: 'dogsled:test', ...params });
    expect((await report({ tokens: { a: ' one\u0007 ', b: 'two' }, seq: 5 })).result.type).toBe('ok');
    await report({ tokens: { a: null, c: 'three' }, seq: 6 });
    expect((await report({ tokens: { b: 'stale' }, seq: 6 })).result.type).toBe('ok');
    expect((await ok('pane.get', { pane_id: pane })).pane.tokens).toEqual({ b: 'two', c: 'three' });

    await report({ tokens: { short: 'lived' }, ttl_ms: 30 });
    expect((await ok('pane.get', { pane_id: pane })).pane.tokens.short).toBe('lived');
    await waitFor('the short-lived token to expire', async () => {
      return (await ok('pane.get', { pane_id: pane })).pane.tokens.short === undefined;
    });
    expect((await ok('pane.get', { pane_id: pane })).pane.tokens).toEqual({ b: 'two', c: 'three' });

    const many = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
    expect((await report({ tokens: many(17, 'x') })).error.code).toBe('invalid_metadata_token');
    expect((await report({ tokens: many(16, 'x') })).result.type).toBe('ok');
    expect((await report({ tokens: many(16, 'y') })).error.code).toBe('metadata_token_limit');
    expect((await report({ tokens: { 'bad key': 'v' } })).error.code).toBe('invalid_metadata_token');
    expect(
      (await herdr.call('pane.report_metadata', { pane_id: pane, source: 'bad source', tokens: { k: 'v' } }))
        .error.code,
    ).toBe('invalid_metadata_source');
    expect((await report({ tokens: { k: 'v' }, ttl_ms: 0 })).error.code).toBe('invalid_metadata_ttl');
    expect((await report({})).error.code).toBe('invalid_metadata_request');

    await ok('workspace.report_metadata', {
      workspace_id: workspace.workspace_id,
      source: 'dogsled:ws',
      tokens: { jj: '2 changes' },
    });
    expect((await ok('workspace.get', { workspace_id: workspace.workspace_id })).workspace.tokens).toEqual({
      jj: '2 changes',
    });
  });

  it('does not deliver notifications by default and rejects an empty title', async () => {
    expect(await ok('notification.show', { title: 'dogsled: stalled', body: 'no output\nfor 15m' })).toEqual({
      type: 'notification_show',
      shown: false,
      reason: 'disabled',
    });
    expect((await herdr.call('notification.show', { title: ' \n ' })).error.code).toBe('invalid_params');
    await ok('_fake.config.set', { toast_delivery: 'herdr' });
    expect((await ok('notification.show', { title: 'shown now' })).shown).toBe(true);
    await ok('_fake.config.set', { toast_delivery: 'off' });
    const sent = (await ok('_fake.notifications.list')).notifications;
    expect(sent[0]).toMatchObject({
      title: 'dogsled: stalled',
      body: 'no output for 15m',
      reason: 'disabled',
    });
  });
});

describe('failure injection', () => {
  it('injects an error envelope, latency, garbage and a dropped connection for the next call only', async () => {
    await ok('_fake.fail_next', { method: 'workspace.list', code: 'server_unavailable' });
    expect((await herdr.call('workspace.list')).error.code).toBe('server_unavailable');
    expect((await herdr.call('workspace.list')).result.type).toBe('workspace_list');

    await ok('_fake.fail_next', { method: 'ping', malformed: 'garbage' });
    await expect(herdr.call('ping')).rejects.toThrow(/no JSON/);
    await ok('_fake.fail_next', { method: 'ping', malformed: 'truncated' });
    await expect(herdr.call('ping')).rejects.toThrow(/no JSON/);
    await ok('_fake.fail_next', { method: 'ping', malformed: 'close' });
    await expect(herdr.call('ping')).rejects.toThrow();
    await ok('_fake.fail_next', { method: 'ping', delay_ms: 50 });
    expect((await herdr.call('ping')).result.type).toBe('pong');

    const calls = (await ok('_fake.calls.list', { method: 'workspace.list' })).calls;
    expect(calls.length).toBeGreaterThanOrEqual(2);
  });
});

describe('stop', () => {
  it('kills every pane process and the server, and is idempotent', async () => {
    const own = await tempDir('fh-stop-');
    const fake = await startFakeHerdr({ dir: own });
    const { root_pane } = (await fake.call('workspace.create', { cwd: own })).result;
    await fake.call('pane.send_input', { pane_id: root_pane.pane_id, text: 'sleep 300 &', keys: ['Enter'] });
    const shell = (await fake.call('pane.process_info', { pane_id: root_pane.pane_id })).result.process_info
      .shell_pid;
    await waitFor('the background sleep to start', async () => {
      for (const name of await readdir('/proc')) {
        const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
        if (stat.includes('(sleep)') && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === shell)
          return true;
      }
      return false;
    });
    await fake.stop();
    await fake.stop();
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor('pane shell to die', async () => (alive(shell) ? undefined : true), { timeoutMs: 3000 });
    await expect(fake.call('ping')).rejects.toThrow();
    await rm(own, { recursive: true, force: true });
  });
});
