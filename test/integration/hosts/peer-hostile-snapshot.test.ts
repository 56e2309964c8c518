// A peer's snapshot with escapes, bidi overrides and zero-width characters in every string (disk
// path, cgroup, terminal kind and why, agent-pane rows, headroom reasons, reservations, errors, jobs,
// a field this version does not know): every reader here shows it cleaned, because the snapshot is
// cleaned where it is parsed. The cache entry is written as a peer's old answer would sit there
// (the clock is held, so nothing reads the peer again): status in each form, `ps --all`, the
// sidebar's hosts and the MCP status tool (Pi reads `status --json`).

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSidebarState } from '../../../service/actions/sidebar-state.js';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import { loadConfig } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { HIDDEN, hostileReply, tainted } from '../../helpers/hostile-snapshot.js';
import { startMcp } from '../../helpers/mcp-client.js';

const NOW = 1_900_000_000_000;
let box: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  box = await sandbox();
  env = { ...box.env, DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW) };
  await writeFile(box.configPath, '[[hosts]]\nid = "evil"\ntarget = "evil"\n');
  await mkdir(join(box.state, 'peers'), { recursive: true });
  const entry = {
    version: 1,
    id: 'evil',
    target: 'evil',
    attempt_ms: NOW,
    read_ms: NOW,
    unreachable: null,
    failures: 0,
    retry_at_ms: null,
    reply: hostileReply(NOW),
  };
  await writeFile(join(box.state, 'peers', 'evil.json'), JSON.stringify(entry));
});

afterAll(async () => {
  await box.cleanup();
});

/** Printed text holds no control (newlines aside), escape, bidi or zero-width character. */
function clean(text: string): void {
  expect(text.split('\n').filter((line) => HIDDEN.test(line))).toEqual([]);
}

describe("a peer's hostile snapshot", () => {
  it('reaches status --json with every string cleaned, the values kept', async () => {
    const result = await runCli(['status', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const evil = StatusReportSchema.parse(JSON.parse(result.stdout)).hosts[1];
    expect(tainted(evil)).toEqual([]);
    expect(evil).toMatchObject({
      id: 'evil',
      hostname: 'evil-host',
      reachable: true,
      errors: ['herdr: refused'],
      reservations: [{ id: 'r_evil', owner: 'w9:p9' }],
      probe: {
        disk: { path: '/srv/evil' },
        memory: { scope: 'cgroup', cgroup: '/evil.slice' },
        terminal: { kind: 'herdr-socket', why: 'socket' },
        agent_panes: [{ pane: 'w1:p1', agent: 'claude', name: 'writer', branch: 'feat/evil', model: 'opus' }],
        extra: 'field',
      },
    });
    expect(evil?.headroom.reason).toContain('cpu: busy');
  });

  it('reaches the terminal cleaned through status, --brief and --line', async () => {
    const human = await runCli(['status'], env);
    expect(human.code, human.stderr).toBe(0);
    clean(human.stdout);
    for (const shown of ['/srv/evil', 'feat/evil', 'cpu: busy', 'herdr: refused']) {
      expect(human.stdout).toContain(shown);
    }
    for (const form of ['--brief', '--line']) {
      const result = await runCli(['status', form], env);
      expect(result.code, result.stderr).toBe(0);
      clean(result.stdout);
    }
  });

  it('lists its jobs cleaned in ps --all', async () => {
    const json = await runCli(['ps', '--all', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const jobs = JSON.parse(json.stdout).jobs;
    expect(tainted(jobs)).toEqual([]);
    expect(jobs).toEqual([expect.objectContaining({ id: 'j_evil', host: 'evil', command: ['make', 'all'] })]);
    const human = await runCli(['ps', '--all'], env);
    clean(human.stdout);
    expect(human.stdout).toContain('make all');
  });

  it("reaches the sidebar's hosts and the MCP status tool cleaned", async () => {
    const io = {
      paths: statePaths(box.state),
      now: () => NOW,
      warn: () => undefined,
      env,
      home: box.home,
      config: await loadConfig(box.configPath, true, box.home),
    };
    const state = await readSidebarState(io, { owner: 'w1:p1' });
    expect(state.hosts.map((host) => host.id)).toEqual(['local', 'evil']);
    expect(tainted(state.hosts)).toEqual([]);
    const mcp = await startMcp(env, box.home);
    try {
      const status = await mcp.json<{ hosts: unknown[] }>('status');
      expect(tainted(status.hosts[1])).toEqual([]);
      expect(status.hosts[1]).toMatchObject({ probe: { disk: { path: '/srv/evil' } } });
    } finally {
      await mcp.close();
    }
  });
});
