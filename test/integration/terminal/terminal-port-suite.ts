// The terminal port's contract as ONE suite, run against every backend: real tmux, the fake Herdr
// and headless (terminal-port-*.test.ts). A backend declares what it has (layout, agents); what it
// lacks must be refused as a TerminalError, never half done. Herdr-only details (base-32 ids, the
// socket, readiness) stay in terminal-contract.test.ts.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { TerminalError } from '../../../service/terminal/terminal-errors.js';
import { waitFor } from '../../helpers/wait.js';

export interface PortBackend {
  port: TerminalPort;
  kind: TerminalPort['kind'];
  /** A directory the tests may write in. */
  work: string;
  /** Workspaces, tabs and panes exist (not headless). */
  layout: boolean;
  stop(): Promise<void>;
}

export async function failure(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

/** Arguments every shell, tmux and Herdr would love to reinterpret. */
export const HOSTILE_ARGS = [
  "it's",
  'two words',
  '$HOME',
  '*',
  '',
  ';',
  'ends;',
  'ends\\;',
  '#{pane_id}',
  '-t',
  '--',
  '{',
  '}',
  '~',
  'a:b.c',
];

let serial = 0;

export function portContract(label: string, open: () => Promise<PortBackend>): void {
  describe(label, () => {
    let b: PortBackend;
    let port: TerminalPort;

    beforeAll(async () => {
      b = await open();
      port = b.port;
    }, 30_000);

    afterAll(async () => {
      await b?.stop();
    });

    /** Runs argv as a job and returns what it wrote, once written (aside, then renamed). */
    async function argsOf(argv: string[], cwd = b.work): Promise<string> {
      const out = join(b.work, `args-${++serial}.txt`);
      const script = 'printf "%s|" "$@" > "$0.tmp" && pwd >> "$0.tmp" && mv "$0.tmp" "$0"';
      await port.runCommand({ cwd, argv: ['sh', '-c', script, out, ...argv], label: 'job' });
      return waitFor('the job output', () => readFile(out, 'utf8').catch(() => undefined));
    }

    it('is the backend it says, with a reason', () => {
      expect(port.kind).toBe(b.kind);
      expect(port.why).not.toBe('');
    });

    it('runs a command with every argument exactly as given, never through a shell line', async () => {
      expect(await argsOf(HOSTILE_ARGS)).toBe(`${HOSTILE_ARGS.join('|')}|${b.work}\n`);
    });

    it('runs a one-word command as that one word, even one a shell would split', async () => {
      const dir = join(b.work, `one word; #{x} ${++serial}`);
      await mkdir(dir, { recursive: true });
      const script = join(dir, 'say it;');
      const out = join(dir, 'out.txt');
      await import('node:fs/promises').then((fs) =>
        fs.writeFile(script, `#!/bin/sh\necho ran > '${out}.tmp' && mv '${out}.tmp' '${out}'\n`, {
          mode: 0o755,
        }),
      );
      await port.runCommand({ cwd: dir, argv: [script], label: 'one' });
      expect(await waitFor('the script ran', () => readFile(out, 'utf8').catch(() => undefined))).toBe(
        'ran\n',
      );
    });

    it('starts a command in a directory whose name holds format and target characters', async () => {
      const dir = join(b.work, `p#{pane_id}:.;-z ${++serial}`);
      await mkdir(dir, { recursive: true });
      expect(await argsOf(['x'], dir)).toBe(`x|${dir}\n`);
    });

    it('treats metadata and agent reports as harmless whatever the backend', async () => {
      const shown = await port.notify({
        title: 'dogsled: contract #{pane_id};',
        body: 'ignore me',
        sound: 'none',
      });
      expect(typeof shown.shown).toBe('boolean');
      const listing = await port.listAll();
      expect(Array.isArray(listing.panes)).toBe(true);
      expect(Array.isArray(listing.agents)).toBe(true);
    });

    it('creates, lists and closes workspaces, tabs and panes by the ids it returned, or refuses them all', async () => {
      if (!b.layout) {
        expect((await failure(port.createWorkspace({ cwd: b.work }))).code).toBe('needs_herdr');
        expect((await failure(port.listPanes())).code).toBe('needs_herdr');
        expect((await failure(port.startAgent({ name: 'x', kind: 'codex', paneId: 'p' }))).code).toBe(
          'needs_herdr',
        );
        return;
      }
      const ws = await port.createWorkspace({ cwd: b.work, label: 'dogsled-contract' });
      const wsId = ws.workspace.workspace_id;
      expect(ws.root_pane.workspace_id).toBe(wsId);
      expect(ws.root_pane.tab_id).toBe(ws.tab.tab_id);
      const name = 'tab #{pane_id}; a:b.c -t';
      const tab = await port.createTab({ workspaceId: wsId, cwd: b.work, label: name });
      expect(tab.tab.workspace_id).toBe(wsId);
      expect((await port.listTabs(wsId)).find((t) => t.tab_id === tab.tab.tab_id)?.label).toBe(name);
      const split = await port.splitPane({
        targetPaneId: tab.root_pane.pane_id,
        direction: 'right',
        ratio: 0.6,
      });
      expect(split.tab_id).toBe(tab.tab.tab_id);
      expect((await port.listPanes(wsId)).map((p) => p.pane_id)).toEqual(
        expect.arrayContaining([ws.root_pane.pane_id, tab.root_pane.pane_id, split.pane_id]),
      );
      const listing = await port.listAll();
      expect(listing.workspaces.map((w) => w.workspace_id)).toContain(wsId);
      expect(listing.panes.find((p) => p.pane_id === split.pane_id)?.terminal_id).toBe(split.terminal_id);

      await port.closePane(split.pane_id);
      expect((await failure(port.getPane(split.pane_id))).code).toBe('pane_not_found');
      const again = await port.splitPane({ targetPaneId: tab.root_pane.pane_id, direction: 'down' });
      expect(again.pane_id).not.toBe(split.pane_id); // ids are never reused
      await port.closeTab(tab.tab.tab_id);
      expect((await failure(port.getPane(again.pane_id))).code).toBe('pane_not_found');
      expect((await port.listTabs(wsId)).map((t) => t.tab_id)).toEqual([ws.tab.tab_id]);
      await port.closeWorkspace(wsId);
      expect((await failure(port.getWorkspace(wsId))).code).toBe('workspace_not_found');
    });

    it('types a line into a pane, reads it back, and sees its foreground process', async () => {
      if (!b.layout) return;
      const pane = (await port.createWorkspace({ cwd: b.work })).root_pane;
      await waitFor('the pane shell', async () => (await port.processInfo(pane.pane_id)).shell_pid);
      await port.runLine(pane.pane_id, 'echo "marker-$((40 + 2))"; sleep 30');
      await expect
        .poll(async () => (await port.readPane(pane.pane_id)).text, { timeout: 10_000 })
        .toContain('marker-42');
      await expect
        .poll(async () => (await port.processInfo(pane.pane_id)).foreground_processes.map((p) => p.name))
        .toContain('sleep');
      await port.closeWorkspace(pane.workspace_id);
    });

    it('sets and clears pane and workspace metadata tokens as a patch, values kept literally', async () => {
      if (!b.layout) {
        expect(await port.reportPaneMetadata('p', { source: 's', tokens: { a: 'b' } })).toEqual({
          applied: false,
        });
        return;
      }
      const ws = await port.createWorkspace({ cwd: b.work });
      const pane = ws.root_pane.pane_id;
      const source = 'dogsled:contract';
      const hostile = 'v #{pane_id};';
      await port.reportPaneMetadata(pane, { source, tokens: { dogsled_state: hostile, dogsled_x: 'y' } });
      expect((await port.getPane(pane)).tokens).toMatchObject({ dogsled_state: hostile, dogsled_x: 'y' });
      await port.reportPaneMetadata(pane, { source, tokens: { dogsled_x: null }, ttlMs: 60_000 });
      const tokens = (await port.getPane(pane)).tokens ?? {};
      expect(tokens.dogsled_state).toBe(hostile);
      expect(tokens.dogsled_x).toBeUndefined();
      await port.reportWorkspaceMetadata(ws.workspace.workspace_id, {
        source,
        tokens: { dogsled_jobs: '2' },
      });
      expect((await port.getWorkspace(ws.workspace.workspace_id)).tokens).toMatchObject({
        dogsled_jobs: '2',
      });
      await port.closeWorkspace(ws.workspace.workspace_id);
    });

    it('refuses ids of panes, tabs and workspaces that do not exist with the not-found codes', async () => {
      if (!b.layout) return;
      expect((await failure(port.getPane('%999999'))).code).toBe('pane_not_found');
      expect((await failure(port.getPane('w9:p9'))).code).toBe('pane_not_found');
      expect((await failure(port.closeTab('w0:t0'))).code).toBe('tab_not_found');
      expect((await failure(port.getWorkspace('$999999'))).code).toBe('workspace_not_found');
    });
  });
}
