// The terminal port's contract with Herdr, run against the fake Herdr always and against a real
// Herdr with DOGSLED_REAL_HERDR=1 (the caller's HERDR_SOCKET_PATH). Fake agents stand in for Pi,
// Claude and Codex in both. Tests that need the fake's `_fake.*` controls say so and run on it only.

import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHerdrBinary } from '../../../service/terminal/herdr/locate.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { isFinalRefusal, TerminalError } from '../../../service/terminal/terminal-errors.js';
import { FAKE_AGENTS_BIN, readLaunches } from '../../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const REAL = process.env.DOGSLED_REAL_HERDR === '1';

interface Backend {
  /** The environment openTerminal sees. */
  env: NodeJS.ProcessEnv;
  home: string;
  work: string;
  logDir: string;
  /** Given to every workspace the tests create: fake agents first on the shells' PATH. */
  paneEnv: Record<string, string>;
  /** The herdr binary (the fake's shim, or the real one). */
  binary: string;
  fake?: FakeHerdr;
  stop(): Promise<void>;
}

async function layout(prefix: string) {
  const root = await tempDir(prefix);
  const home = join(root, 'home');
  const work = join(root, 'work');
  const logDir = join(root, 'agents');
  await Promise.all([home, work, logDir].map((path) => mkdir(path, { recursive: true })));
  const paneEnv = {
    PATH: `${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    FAKE_AGENT_LOG_DIR: logDir,
  };
  return { root, home, work, logDir, paneEnv };
}

async function fakeBackend(version?: string): Promise<Backend> {
  const { root, home, work, logDir, paneEnv } = await layout('dogsled-contract-');
  const fake = await startFakeHerdr({ dir: root, ...(version ? { version } : {}), env: paneEnv });
  return {
    env: fake.env,
    home,
    work,
    logDir,
    paneEnv,
    binary: join(fake.binDir, 'herdr'),
    fake,
    async stop() {
      await fake.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function realBackend(): Promise<Backend> {
  if (!process.env.HERDR_SOCKET_PATH)
    throw new Error('DOGSLED_REAL_HERDR=1 needs HERDR_SOCKET_PATH (run inside Herdr)');
  const binary = await findHerdrBinary(process.env);
  if (!binary) throw new Error('DOGSLED_REAL_HERDR=1 needs a herdr binary on PATH');
  const { root, home, work, logDir, paneEnv } = await layout('dogsled-contract-real-');
  return {
    env: process.env,
    home,
    work,
    logDir,
    paneEnv,
    binary,
    stop: () => rm(root, { recursive: true, force: true }),
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

let serial = 0;
const uniqueName = (stem: string) => `${stem}-${process.pid % 10_000}-${++serial}`;

function contract(label: string, open: () => Promise<Backend>) {
  describe(label, () => {
    let b: Backend;
    let port: TerminalPort;
    const workspaces: string[] = [];

    beforeAll(async () => {
      b = await open();
      port = await openTerminal({ env: b.env, home: b.home });
    }, 30_000);

    afterAll(async () => {
      for (const id of workspaces) await port.closeWorkspace(id).catch(() => undefined);
      await b?.stop();
    });

    async function workspace() {
      const created = await port.createWorkspace({ cwd: b.work, env: b.paneEnv, label: 'dogsled-contract' });
      workspaces.push(created.workspace.workspace_id);
      return created;
    }

    /** A pane whose shell has started (its process is known), so typed input reaches a shell. */
    async function shellPane() {
      const pane = (await workspace()).root_pane;
      await waitFor('the pane shell', async () => (await port.processInfo(pane.pane_id)).shell_pid);
      return pane;
    }

    /** The pane's text once it has stopped changing (a shell may still be drawing its prompt). */
    async function settledText(paneId: string): Promise<string> {
      let last = (await port.readPane(paneId)).text;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const now = (await port.readPane(paneId)).text;
        if (now === last) return now;
        last = now;
      }
    }

    it('talks to Herdr over the socket', () => {
      expect(port.kind).toBe('herdr-socket');
      expect(port.insideHerdr).toBe(true);
      expect(port.server?.protocol).toBeTypeOf('number');
    });

    it('creates, splits and closes workspaces, tabs and panes, with ids read from the replies', async () => {
      const ws = await workspace();
      const wsId = ws.workspace.workspace_id;
      expect(ws.root_pane.workspace_id).toBe(wsId);
      expect(ws.root_pane.tab_id).toBe(ws.tab.tab_id);
      const tab = await port.createTab({ workspaceId: wsId, cwd: b.work, label: 'second' });
      expect(tab.tab.workspace_id).toBe(wsId);
      const split = await port.splitPane({
        targetPaneId: tab.root_pane.pane_id,
        direction: 'right',
        ratio: 0.6,
      });
      expect(split.tab_id).toBe(tab.tab.tab_id);
      const ids = (await port.listPanes(wsId)).map((pane) => pane.pane_id);
      expect(ids).toEqual(
        expect.arrayContaining([ws.root_pane.pane_id, tab.root_pane.pane_id, split.pane_id]),
      );

      await port.closePane(split.pane_id);
      expect((await failure(port.getPane(split.pane_id))).code).toBe('pane_not_found');
      const again = await port.splitPane({ targetPaneId: tab.root_pane.pane_id, direction: 'down' });
      expect(again.pane_id).not.toBe(split.pane_id); // ids are never reused

      await port.closeTab(tab.tab.tab_id);
      expect((await failure(port.getPane(again.pane_id))).code).toBe('pane_not_found');
      expect((await port.listTabs(wsId)).map((t) => t.tab_id)).toEqual([ws.tab.tab_id]);

      await port.closeWorkspace(wsId);
      expect((await failure(port.getWorkspace(wsId))).code).toBe('workspace_not_found');
      expect((await failure(port.closeTab('w0:t0'))).code).toBe('tab_not_found');
    });

    it("passes Herdr's base-32 ids through unchanged: the tenth tab of a workspace is not t10", async () => {
      const ws = await workspace();
      const tabIds = [ws.tab.tab_id];
      for (let i = 0; i < 10; i++) {
        const tab = await port.createTab({ workspaceId: ws.workspace.workspace_id, cwd: b.work });
        tabIds.push(tab.tab.tab_id);
        expect((await port.getPane(tab.root_pane.pane_id)).tab_id).toBe(tab.tab.tab_id);
      }
      expect(new Set(tabIds).size).toBe(11);
      expect(tabIds.some((id) => /:t[A-Z]$/.test(id))).toBe(true);
      expect(tabIds.some((id) => /:t1\d$/.test(id))).toBe(false);
      expect((await port.listTabs(ws.workspace.workspace_id)).map((t) => t.tab_id)).toEqual(tabIds);
    });

    it('types a line into a pane, reads it back, and sees its foreground process', async () => {
      const pane = await shellPane();
      await port.runLine(pane.pane_id, 'echo "marker-$((40 + 2))"; sleep 30');
      await expect
        .poll(async () => (await port.readPane(pane.pane_id)).text, { timeout: 10_000 })
        .toContain('marker-42');
      await expect
        .poll(async () => (await port.processInfo(pane.pane_id)).foreground_processes.map((p) => p.name))
        .toContain('sleep');
    });

    it('runs a job command line in a new tab with every argument intact', async () => {
      const ws = await workspace();
      const out = join(b.work, `args-${++serial}.txt`);
      const launched = await port.runCommand({
        workspaceId: ws.workspace.workspace_id,
        cwd: b.work,
        label: 'job',
        // Written aside then renamed, so the test never reads a half-written file.
        argv: [
          'sh',
          '-c',
          'printf "%s|" "$@" > "$0.tmp" && mv "$0.tmp" "$0"',
          out,
          "it's",
          'two words',
          '$HOME',
          '*',
          '',
        ],
      });
      expect(launched.workspaceId).toBe(ws.workspace.workspace_id);
      expect((await port.getPane(launched.paneId)).tab_id).toBe(launched.tabId);
      expect(await waitFor('the job output', () => readFile(out, 'utf8').catch(() => undefined))).toBe(
        "it's|two words|$HOME|*||",
      );
    });

    it('refuses an agent start on a busy pane, typing nothing into it', async () => {
      const pane = await shellPane();
      await port.runLine(pane.pane_id, 'sleep 30');
      await expect
        .poll(async () => (await port.processInfo(pane.pane_id)).foreground_processes.map((p) => p.name))
        .toContain('sleep');
      const before = await settledText(pane.pane_id);
      const error = await failure(
        port.startAgent({ name: uniqueName('busy'), kind: 'codex', paneId: pane.pane_id }),
      );
      expect(error.code).toBe('agent_pane_busy');
      expect(isFinalRefusal(error)).toBe(true);
      expect((await port.readPane(pane.pane_id)).text).toBe(before);
    });

    it('refuses a name that a live or pending agent holds, typing nothing into the second pane', async () => {
      const first = await shellPane();
      const second = await shellPane();
      const name = uniqueName('dup');
      const starting = port.startAgent({ name, kind: 'codex', paneId: first.pane_id, timeoutMs: 30_000 });
      starting.catch(() => undefined);
      await waitFor('the first launch to hold the name', () => port.getAgent(name).catch(() => undefined));
      const before = await settledText(second.pane_id);
      const error = await failure(port.startAgent({ name, kind: 'codex', paneId: second.pane_id }));
      expect(error.code).toBe('agent_name_taken');
      expect(isFinalRefusal(error)).toBe(true);
      expect((await port.readPane(second.pane_id)).text).toBe(before);
      await starting.catch(() => undefined);
    });

    it('refuses a pane that has vanished as agent_pane_not_found', async () => {
      const ws = await workspace();
      const gone = await port.splitPane({ targetPaneId: ws.root_pane.pane_id, direction: 'right' });
      await port.closePane(gone.pane_id);
      const error = await failure(
        port.startAgent({ name: uniqueName('gone'), kind: 'codex', paneId: gone.pane_id }),
      );
      expect(error.code).toBe('agent_pane_not_found');
      expect(isFinalRefusal(error)).toBe(true);
      const bad = await failure(
        port.startAgent({ name: 'Not A Name', kind: 'codex', paneId: ws.root_pane.pane_id }),
      );
      expect(bad.code).toBe('invalid_agent_name');
    });

    it('starts an agent and returns only once Herdr reports it ready or running as the asked harness', async () => {
      const pane = await shellPane();
      const name = uniqueName('rev');
      const args = ['-m', 'alias/sol', "it's one 'argument' with $HOME"];
      const started = await port.startAgent({
        name,
        kind: 'codex',
        paneId: pane.pane_id,
        args,
        timeoutMs: 30_000,
      });
      expect(started.agent).toMatchObject({ name, agent: 'codex', pane_id: pane.pane_id });
      // Either signal confirms the start: Herdr's interactive-ready flag, or Herdr detecting the
      // asked harness in a state of its own (a busy machine can show the second before the first).
      const confirmed =
        started.agent.interactive_ready === true ||
        (started.agent.agent_status !== undefined && started.agent.agent_status !== 'unknown');
      expect(confirmed, JSON.stringify(started.agent)).toBe(true);
      expect(started.argv).toEqual(['codex', ...args]);
      const launch = await waitFor('the fake agent launch record', async () =>
        (await readLaunches(b.logDir).catch(() => [])).find((l) => l.herdr_pane_id === pane.pane_id),
      );
      expect(launch.argv).toEqual(args);
      expect((await port.listAgents()).map((a) => a.name)).toContain(name);
      const waited = await port.waitAgent(name, { timeoutMs: 5_000 });
      expect(['idle', 'done', 'blocked']).toContain(waited.agent_status);
      expect(typeof (await port.readAgent(name)).text).toBe('string');
    });

    it('returns workspaces, tabs, panes and agents in one listing', async () => {
      const ws = await workspace();
      const listing = await port.listAll();
      expect(listing.workspaces.map((w) => w.workspace_id)).toContain(ws.workspace.workspace_id);
      expect(listing.tabs.map((t) => t.tab_id)).toContain(ws.tab.tab_id);
      expect(listing.panes.map((p) => p.pane_id)).toContain(ws.root_pane.pane_id);
      expect(Array.isArray(listing.agents)).toBe(true);
    });

    it('sets and clears pane and workspace metadata tokens as a patch', async () => {
      const ws = await workspace();
      const pane = ws.root_pane.pane_id;
      const source = 'dogsled:contract';
      expect(
        await port.reportPaneMetadata(pane, { source, tokens: { dogsled_state: 'review', dogsled_x: 'y' } }),
      ).toEqual({
        applied: true,
      });
      expect((await port.getPane(pane)).tokens).toMatchObject({ dogsled_state: 'review', dogsled_x: 'y' });
      await port.reportPaneMetadata(pane, { source, tokens: { dogsled_x: null }, ttlMs: 60_000 });
      const tokens = (await port.getPane(pane)).tokens ?? {};
      expect(tokens.dogsled_state).toBe('review');
      expect(tokens.dogsled_x).toBeUndefined();
      await port.reportWorkspaceMetadata(ws.workspace.workspace_id, {
        source,
        tokens: { dogsled_jobs: '2' },
      });
      expect((await port.getWorkspace(ws.workspace.workspace_id)).tokens).toMatchObject({
        dogsled_jobs: '2',
      });
    });

    it('shows a notification without failing when Herdr does not deliver it', async () => {
      const shown = await port.notify({ title: 'dogsled: contract test', body: 'ignore me', sound: 'none' });
      expect(typeof shown.shown).toBe('boolean');
      if (b.fake) expect(shown).toMatchObject({ shown: false, reason: 'disabled' });
    });

    it('falls back to the herdr CLI when no socket is in the environment but the binary reaches one', async () => {
      // A herdr on PATH whose own setting reaches the server, while this process sees no socket.
      const wrapperDir = join(b.work, `wrapper-${++serial}`);
      await mkdir(wrapperDir);
      const socket = b.fake?.socketPath ?? process.env.HERDR_SOCKET_PATH;
      await writeFile(
        join(wrapperDir, 'herdr'),
        `#!/bin/sh\nHERDR_SOCKET_PATH='${socket}' exec '${b.binary}' "$@"\n`,
      );
      await chmod(join(wrapperDir, 'herdr'), 0o755);
      const env = {
        PATH: `${wrapperDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: b.home,
        XDG_CONFIG_HOME: join(b.work, 'no-config'),
        ...(b.fake ? { FAKE_HERDR_VERSION: b.fake.env.FAKE_HERDR_VERSION } : {}),
      };
      const cli = await openTerminal({ env, home: b.home });
      expect(cli.kind).toBe('herdr-cli');
      const ws = await workspace();
      expect((await cli.listWorkspaces()).map((w) => w.workspace_id)).toContain(ws.workspace.workspace_id);
      expect((await cli.getPane(ws.root_pane.pane_id)).terminal_id).toBe(ws.root_pane.terminal_id);
      await waitFor('the pane shell', async () => (await cli.processInfo(ws.root_pane.pane_id)).shell_pid);
      const name = uniqueName('cli');
      const started = await cli.startAgent({
        name,
        kind: 'codex',
        paneId: ws.root_pane.pane_id,
        timeoutMs: 30_000,
      });
      expect(started.agent).toMatchObject({ name, interactive_ready: true });
      const busy = await failure(
        cli.startAgent({ name: uniqueName('cli'), kind: 'codex', paneId: ws.root_pane.pane_id }),
      );
      expect(busy.code).toBe('agent_pane_busy');
      expect(isFinalRefusal(busy)).toBe(true);
    });

    it('lists saved machines, or null when this Herdr has none of the machine verbs', async () => {
      const machines = await port.machines();
      expect(machines === null || Array.isArray(machines)).toBe(true);
    });
  });
}

contract('the port against the fake Herdr', () => fakeBackend());

if (REAL) {
  contract('the port against a real Herdr', realBackend);
} else {
  process.stdout.write(
    'terminal contract: real Herdr variant skipped (set DOGSLED_REAL_HERDR=1 inside Herdr)\n',
  );
  describe.skip('the port against a real Herdr (set DOGSLED_REAL_HERDR=1 inside Herdr to run)', () => {
    it('runs the same contract', () => {});
  });
}
