// The pane observer against the fake Herdr, whose panes are real shells on real terminals: an idle
// shell is an empty prompt, a foreground command or a background job is not, and the service's
// clocks carry on by terminal id from one observation to the next.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeShellPanes, type PaneProbe, probePrompt } from '../../../service/probe/shell-panes.js';
import { childNames } from '../../../service/process/process-table.js';
import { parsePsChildren } from '../../../service/process/process-table-darwin.js';
import { openTerminal } from '../../../service/terminal/open.js';
import type { TerminalPort } from '../../../service/terminal/port.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

let root: string;
let work: string;
let herdr: FakeHerdr;
let port: TerminalPort;

beforeAll(async () => {
  root = await tempDir('dogsled-shell-panes-');
  work = join(root, 'work');
  await mkdir(work, { recursive: true });
  herdr = await startFakeHerdr({ dir: root, env: { HOME: join(root, 'home') } });
  port = await openTerminal({ env: herdr.env, home: join(root, 'home') });
}, 30_000);

afterAll(async () => {
  await herdr?.stop();
  await rm(root, { recursive: true, force: true });
});

/** A new workspace's root pane, once its shell waits at its prompt. */
async function idlePane(): Promise<{ pane: string; terminal: string }> {
  const created = await port.createWorkspace({ cwd: work });
  const pane = created.root_pane.pane_id;
  await probeUntil(pane, (probe) => probe.state.kind === 'empty');
  return { pane, terminal: created.root_pane.terminal_id };
}

function probeUntil(pane: string, ok: (probe: PaneProbe) => boolean): Promise<PaneProbe> {
  return waitFor(`pane ${pane}`, async () => {
    const probe = await probePrompt(port, pane);
    return ok(probe) ? probe : undefined;
  });
}

describe('probePrompt', () => {
  it('sees an idle shell as an empty prompt, with its working directory', async () => {
    const { pane } = await idlePane();
    const probe = await probePrompt(port, pane);
    expect(probe.state).toEqual({ kind: 'empty', shell: 'sh' });
    expect(probe.cwd).toBe(work);
  });

  it('names the program of a foreground command, never its arguments', async () => {
    const { pane } = await idlePane();
    await port.runLine(pane, 'sleep 30');
    // Until the shell hands the terminal to the job (and the child execs), the pane briefly looks
    // like a shell with a background child; wait for the settled foreground job.
    const probe = await probeUntil(
      pane,
      (p) => p.state.kind === 'running' && p.state.reason === 'runs sleep',
    );
    expect(probe.state).toEqual({ kind: 'running', program: 'sleep', reason: 'runs sleep' });
  });

  it('keeps a shell whose background job still runs', async () => {
    const { pane } = await idlePane();
    await port.runLine(pane, 'sleep 30 &');
    const probe = await probeUntil(pane, (p) => p.state.kind === 'running' && p.state.program === 'sleep');
    expect(probe.state).toEqual({
      kind: 'running',
      program: 'sleep',
      reason: 'a background job runs (sleep)',
    });
  });

  it('reads no children for a process that does not exist', async () => {
    expect(await childNames(2 ** 22 + 1)).toBeNull();
  });

  it("picks a process's children out of a ps listing by parent pid, naming programs only", () => {
    const listing = '    1 /sbin/launchd\n  412 /bin/sleep\n  412 -zsh\n 4120 /usr/bin/tail\n';
    expect(parsePsChildren(listing, 412)).toEqual(['sleep', '-zsh']);
  });
});

describe('observeShellPanes', () => {
  it('starts and carries the empty clock by terminal id, resets it on a command, and tracks agents', async () => {
    const quiet = await idlePane();
    const busy = await idlePane();
    const agent = await idlePane();
    await port.runLine(busy.pane, 'sleep 30');
    await probeUntil(busy.pane, (p) => p.state.kind === 'running');
    const report = await herdr.call('pane.report_agent', {
      pane_id: agent.pane,
      source: 'test',
      agent: 'claude',
      state: 'idle',
    });
    expect(report.result).toEqual({ type: 'ok' });

    const t0 = 1_800_000_000_000;
    const first = await observeShellPanes({ port, previous: {}, now: t0 });
    expect(first.errors).toEqual([]);
    expect(first.watch[quiet.terminal]).toEqual({ pane: quiet.pane, empty_since_ms: t0, observed_ms: t0 });
    expect(first.watch[busy.terminal]).toEqual({ pane: busy.pane, empty_since_ms: null, observed_ms: t0 });
    expect(first.watch[agent.terminal]).toEqual({
      pane: agent.pane,
      empty_since_ms: null,
      idle_since_ms: t0,
      observed_ms: t0,
    });

    await port.runLine(quiet.pane, 'sleep 30');
    await probeUntil(quiet.pane, (p) => p.state.kind === 'running');
    const second = await observeShellPanes({ port, previous: first.watch, now: t0 + 5_000, width: 1 });
    expect(second.watch[quiet.terminal]?.empty_since_ms).toBeNull();
    expect(second.watch[agent.terminal]?.idle_since_ms).toBe(t0);
  });

  it('keeps the previous map and reports the failure when the listing fails', async () => {
    const previous = { term_x: { pane: 'w9:p1', empty_since_ms: 1, observed_ms: 2 } };
    await herdr.call('_fake.fail_next', { method: 'session.snapshot', code: 'server_unavailable' });
    const observed = await observeShellPanes({ port, previous, now: 3 });
    expect(observed.watch).toEqual(previous);
    expect(observed.errors).toHaveLength(1);
    expect(observed.errors[0]).toMatch(/^herdr: /);
  });
});
