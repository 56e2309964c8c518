// The host detail view in a real tmux: ⏎ on a host draws CPU busy and memory used over the last hour
// (w: the last day) from samples.jsonl with blessed-contrib's line chart, which is loaded only when the
// view opens and by its module path, never the package index; then why the host takes no work, in
// the words `status` uses, its reservations, agents and jobs. Escape goes back to the board.

import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { startTmux, type Tmux, type TmuxServer } from '../../helpers/tmux.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { flat, openSidebar, RUNNING_JOB, writeAfternoon, writeHistory } from './sidebar-fixtures.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
/** The braille cells drawille draws a line chart with. */
const BRAILLE = /[\u2801-\u28ff]/;
/** The screen's text inside the detail view's frame, as one line. */
const inner = (rows: readonly string[]) => flat(rows.slice(1, -1).map((l) => l.slice(1, -1)));
let server: TmuxServer;
let box: Sandbox;
let lock: ServiceLock | undefined;
const screens: Tmux[] = [];

beforeAll(async () => {
  if (HAS_TMUX) server = await startTmux(await tempDir('dogsled-tmux-'), `sd${process.pid}`);
});
afterAll(async () => server?.kill());
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  for (const screen of screens.splice(0)) await screen.kill();
  await lock?.release();
  lock = undefined;
  await box.cleanup();
});

/** A preload that writes the node_modules files the process loaded when it exits. */
async function loadedModules(): Promise<{ env: NodeJS.ProcessEnv; read: () => Promise<string[]> }> {
  const out = join(box.root, 'loaded.json');
  const preload = join(box.root, 'loaded.cjs');
  await writeFile(
    preload,
    // Written beside and renamed, so the test never reads a file the exiting process is still writing.
    `process.on('exit', () => { const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(`${out}.part`)}, JSON.stringify(Object.keys(require.cache))); fs.renameSync(${JSON.stringify(`${out}.part`)}, ${JSON.stringify(out)}); });\n`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${preload}` },
    read: async () => {
      const text = await waitFor(
        'the sidebar to exit',
        async () => (await readFile(out, 'utf8').catch(() => undefined)) as string | undefined,
        { timeoutMs: 15_000 },
      );
      return (JSON.parse(text) as string[])
        .filter((path) => path.includes('/node_modules/blessed-contrib/'))
        .map((path) => path.slice(path.lastIndexOf('/node_modules/') + '/node_modules/'.length));
    },
  };
}

describe.skipIf(!HAS_TMUX)('the host detail view', () => {
  it('opens on ⏎ with charts of the last hour and day, the reasons status gives, and the host’s work', async () => {
    const now = Date.now();
    await writeAfternoon(box.state, now);
    await writeHistory(box.state, now, 26 * 60);
    lock = await holdServiceLock(box.state);
    const status = JSON.parse((await runCli(['status', '--json'], box.env)).stdout);
    const reasons = status.hosts[0].headroom.reason as string[];
    expect(reasons.length).toBeGreaterThan(0);
    const modules = await loadedModules();
    const screen = await openSidebar({ server, box, width: 38, height: 60, env: modules.env });
    screens.push(screen);
    await screen.keys('Tab', 'Enter');
    // The view's last line too: tmux may be read while blessed is still writing the frame.
    const hour = await screen.waitFor('the detail', (r) => {
      const text = inner(r);
      return text.includes('cpu busy · last hour · avg') && text.includes('w: last day');
    });
    const text = inner(hour);
    expect(hour[0]).toMatch(/^┌─ local ─+┐$/);
    expect(text).toContain('▲ not eligible');
    for (const reason of reasons) expect(text).toContain(`- ${reason}`);
    expect(text).toMatch(/cpu busy · last hour · avg \d+% · max \d+%/);
    expect(text).toMatch(/memory used · last hour · avg 50% · max 50%/);
    expect(hour.filter((l) => BRAILLE.test(l)).length).toBeGreaterThan(4);
    expect(hour.some((l) => l.includes('-59m'))).toBe(true);
    expect(text).toContain('agents 1');
    expect(text).toContain('blocked · w3:p1 claude');
    expect(text).toContain(`running 3m · ${RUNNING_JOB}`);
    expect(text).toContain('w: last day');
    await screen.keys('w');
    const day = await screen.waitFor('the last day', (r) => inner(r).includes('cpu busy · last day · avg'));
    expect(day.some((l) => /-2[34]h/.test(l))).toBe(true);
    expect(day.filter((l) => BRAILLE.test(l)).length).toBeGreaterThan(4);
    await screen.keys('Escape');
    await screen.waitFor('the board again', (r) => r.some((l) => l.includes('Agents & Jobs')));
    await screen.keys('q');
    // The line chart's module, by its path: never blessed-contrib's index.
    const loaded = await modules.read();
    expect(loaded).toContain('blessed-contrib/lib/widget/charts/line.js');
    expect(loaded).not.toContain('blessed-contrib/index.js');
  });

  it('loads nothing of blessed-contrib when no detail view opens', async () => {
    await writeAfternoon(box.state, Date.now());
    const modules = await loadedModules();
    const screen = await openSidebar({ server, box, width: 38, height: 40, env: modules.env });
    screens.push(screen);
    await screen.keys('q');
    expect(await modules.read()).toEqual([]);
  });

  it('gives a 12-row pane the charts as numbers, and follows new samples while open', async () => {
    const now = Date.now();
    await writeAfternoon(box.state, now);
    await writeHistory(box.state, now, 60);
    const screen = await openSidebar({ server, box, width: 30, height: 12 });
    screens.push(screen);
    await screen.keys('Tab', 'Enter');
    const rows = await screen.waitFor('the detail', (r) => r.some((l) => l.includes('not eligible')));
    expect(rows).toHaveLength(12);
    expect(rows.some((l) => BRAILLE.test(l))).toBe(false);
    // Scrolled to its end, the text has each chart's numbers.
    const seen: string[] = [];
    const pages: string[][] = [];
    let page = rows;
    for (let i = 0; i < 40 && !page.some((l) => l.includes('esc: back')); i++) {
      seen.push(inner(page));
      pages.push(page);
      const before = page.join('\n');
      await screen.keys('Down');
      page = await screen.waitFor('the detail scrolled', (r) => r.join('\n') !== before);
    }
    seen.push(inner(page));
    pages.push(page);
    expect(flat(seen)).toMatch(/cpu busy · last hour · avg \d+% · max \d+%/);
    expect(flat(seen)).toContain('(charts need a taller pane)');
    // Nothing is cut but a name under its row (an agent's model, a job's command), shortened in the middle.
    const lines = pages.flatMap((page) => page.slice(1, -1).map((l) => l.slice(1, -1)));
    for (const line of lines.filter((l) => l.includes('…'))) expect(line).toMatch(/^ {4}\S.*…\S/);
    // A new sample at 100% busy: the numbers follow while the view is open.
    const last = JSON.stringify({
      ts_ms: Date.now(),
      cores: 2,
      busy: 1,
      load1: 1,
      memory: { total_bytes: 1, used_bytes: 1, free_bytes: 0 },
    });
    await writeFile(
      join(box.state, 'samples.jsonl'),
      `${await readFile(join(box.state, 'samples.jsonl'), 'utf8')}${last}\n`,
    );
    await screen.keys('PageUp', 'PageUp', 'PageUp', 'PageUp', 'PageUp', 'PageUp', 'PageUp', 'PageUp');
    let top = await screen.waitFor('the top of the detail', (r) => inner(r).startsWith('service down'));
    for (let i = 0; i < 20 && !/cpu busy · last hour · avg \d+% · max \d+%/.test(inner(top)); i++) {
      const before = top.join('\n');
      await screen.keys('Down');
      top = await screen.waitFor('the detail scrolled', (r) => r.join('\n') !== before);
    }
    await screen.waitFor('the new sample in the numbers', (r) => inner(r).includes('max 100%'));
  });
});
