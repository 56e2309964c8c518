// The board an owner keeps open all afternoon, in a real tmux at 30, 38 and 60 columns and at 12
// and 60 rows: each card says first what to do ("+1 to land", "exit 3", "blocked", "#2 queued") and
// why, wrapped rather than cut (only names are shortened, in the middle); a WAITING ticket and a
// refused host give the words `status` gives; no Todos panel without a publication. Read back with
// capture-pane, the whole board reached by moving the selection where it does not fit.

import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queuedWhy } from '../../../service/core/placement/queued-why.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { startTmux, type Tmux, type TmuxServer } from '../../helpers/tmux.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';
import { FACTS, flat, openSidebar, panelText, writeAfternoon } from './sidebar-fixtures.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
let server: TmuxServer;
let box: Sandbox;
let lock: ServiceLock | undefined;
const screens: Tmux[] = [];

beforeAll(async () => {
  if (HAS_TMUX) server = await startTmux(await tempDir('dogsled-tmux-'), `sl${process.pid}`);
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

async function open(width: number, height: number, env: NodeJS.ProcessEnv = {}): Promise<Tmux> {
  const screen = await openSidebar({ server, box, width, height, env });
  screens.push(screen);
  return screen;
}

/** Why the local host refuses work, as `status --json` says it. */
async function statusReasons(): Promise<string[]> {
  const status = await runCli(['status', '--json'], box.env);
  expect(status.code).toBe(0);
  const report = JSON.parse(status.stdout) as { hosts: Array<{ headroom: { reason: string[] } }> };
  return report.hosts[0]?.headroom.reason ?? [];
}

/**
 * Every line the Agents & Jobs panel shows while the selection walks from the first card to the
 * last (a short pane scrolls), in order, each line once per screen it appeared on.
 */
async function walkBoard(screen: Tmux, cards: number): Promise<string[]> {
  const seen: string[] = [];
  let rows = await screen.capture();
  seen.push(...panelText(rows, 'Agents & Jobs'));
  for (let i = 1; i < cards; i++) {
    const before = rows.join('\n');
    await screen.keys('Down');
    rows = await screen.waitFor(`card ${i + 1} selected`, (r) => r.join('\n') !== before);
    seen.push(...panelText(rows, 'Agents & Jobs'));
  }
  return seen;
}

describe.skipIf(!HAS_TMUX)('the afternoon board at every size', () => {
  it.each([
    [30, 60],
    [38, 60],
    [60, 60],
    [30, 12],
    [38, 12],
    [60, 12],
  ])('keeps every fact the owner acts on whole at %i columns and %i rows', async (width, height) => {
    const now = Date.now();
    await writeAfternoon(box.state, now);
    lock = await holdServiceLock(box.state);
    const reasons = await statusReasons();
    expect(reasons.some((r) => r.startsWith('cpu: '))).toBe(true);
    const screen = await open(width, height);
    const rows = await screen.waitFor('the board', (r) => r.some((l) => l.includes('TO LAND')));
    expect(rows).toHaveLength(height);
    for (const row of rows) expect([...row].length).toBeLessThanOrEqual(width);
    // Five cards: to land, exit 3, blocked, running, #2 queued.
    const lines = await walkBoard(screen, 5);
    const text = flat(lines);
    for (const fact of Object.values(FACTS)) expect(text).toContain(fact);
    // Why the ticket waits, in the words `run` prints when it queues, from the reasons `status` gives.
    expect(text).toContain(queuedWhy(0, [{ label: 'local', reason: reasons }]));
    // No action, id or reason is cut: a `…` is only ever inside a name (a command, a branch).
    for (const line of lines.filter((l) => l.includes('…'))) {
      // A title after its pill (`running  npm run …verbose'`), or a branch after `· branch`.
      expect(line).toMatch(/^[ ▌] [^ ]+(?: [^ ]+)* {2}\S.*…|· branch \S+…\S/);
    }
    expect(text).toContain('job j_4kq2m7xa9d3b');
    expect(text).toContain('ticket t_x8d2k4m1q9za');
    // No Todos panel without a publication.
    expect(rows.some((r) => r.includes('Todos'))).toBe(false);

    const hosts = flat(panelText(rows, 'Hosts'));
    if (height >= 24) {
      // A card says why the host takes no work, under its ▲.
      expect(hosts).toContain(`▲ ${reasons[0]}`);
    } else {
      // Folded in a short pane: the reasons are in the host's detail view, every one of them.
      await screen.keys('Tab', 'Enter');
      const detail: string[] = [];
      let page = await screen.waitFor('the detail view', (r) => r.some((l) => l.includes('not eligible')));
      for (let i = 0; i < 40; i++) {
        detail.push(...page.slice(1, -1).map((l) => l.slice(1, -1)));
        if (page.some((l) => l.includes('esc: back'))) break;
        const before = page.join('\n');
        await screen.keys('Down');
        page = await screen.waitFor('the detail scrolled', (r) => r.join('\n') !== before);
      }
      for (const reason of reasons) expect(flat(detail)).toContain(reason);
    }
  });

  it('shows a board whose state dir appears after it opened, from watching alone (no poll)', async () => {
    await rm(box.state, { recursive: true, force: true });
    const screen = await open(38, 40);
    await screen.waitFor('an empty board', (r) => r.some((l) => l.includes('no agents or jobs')));
    await mkdir(box.state, { recursive: true, mode: 0o700 });
    await writeAfternoon(box.state, Date.now());
    const rows = await screen.waitFor('the afternoon, once written', (r) => flat(r).includes(FACTS.toLand));
    expect(flat(rows)).toContain(FACTS.failed);
  });
});

describe.skipIf(!HAS_TMUX)('the theme', () => {
  /** SGR colour parameters of the screen: `38;5;N` and `48;5;N`, or basic 30-37/40-47. */
  const colours = (ansi: string) =>
    [...ansi.matchAll(/\u001b\[([0-9;]*)m/g)].map((m) => m[1] ?? '').join(' ');

  it('draws dogsled-dark in 256 colours (accent 75), never reduced to eight', async () => {
    await writeAfternoon(box.state, Date.now());
    const screen = await open(38, 40);
    await screen.waitFor('the board', (r) => r.some((l) => l.includes('TO LAND')));
    const ansi = colours(await screen.captureAnsi());
    expect(ansi).toContain('38;5;75');
    expect(ansi).not.toMatch(/(^|[ ;])3[1-7](;|$| )/);
  });

  it('turns light when the terminal answers that its background is light, and the answer is not read as keys', async () => {
    await writeAfternoon(box.state, Date.now());
    const screen = await open(38, 40, { DOGSLED_TEST_SIDEBAR_BACKGROUND_MS: '60000' });
    await screen.waitFor('the board', (r) => r.some((l) => l.includes('TO LAND')));
    // Select the ATTENTION card: a `d` leaking from the reply's hex digits would dismiss it.
    await screen.keys('Down');
    await screen.waitFor('the failed job selected', (r) => r.some((l) => l.startsWith('│▌ exit 3')));
    await screen.literal('\u001b]11;rgb:dddd/dddd/dddd\u001b\\');
    const ansi = await ansiWith(screen, (a) => a.includes('38;5;26'), 'the light accent');
    expect(ansi).not.toContain('38;5;75');
    const rows = await screen.capture();
    expect(rows.some((r) => /^│▾ ATTENTION 2 +│$/.test(r))).toBe(true);
    expect(rows.some((r) => r.includes('DONE'))).toBe(false);
  });

  it("takes dogsled's theme.toml over Herdr's config and follows it when it changes", async () => {
    await writeAfternoon(box.state, Date.now());
    const dir = join(box.home, '.config', 'dogsled');
    await mkdir(dir, { recursive: true });
    await writeFile(join(box.root, 'herdr-config.toml'), '[theme]\nname = "catppuccin"\n');
    await writeFile(join(dir, 'theme.toml'), '[theme]\nname = "dogsled-light"\n');
    const screen = await open(38, 40);
    await ansiWith(screen, (a) => a.includes('38;5;26'), 'the light accent from theme.toml');
    await writeFile(join(dir, 'theme.toml'), '[theme]\n[theme.custom]\naccent = "#d75f87"\n');
    await ansiWith(screen, (a) => a.includes('38;5;168'), "the custom accent over Herdr's catppuccin");
  });
});

/** The screen's ANSI capture once `check` accepts it. */
function ansiWith(screen: Tmux, check: (ansi: string) => boolean, what: string): Promise<string> {
  return waitFor(
    `the screen to show ${what}`,
    async () => {
      const ansi = await screen.captureAnsi();
      return check(ansi) ? ansi : undefined;
    },
    { timeoutMs: 15_000, intervalMs: 50 },
  );
}
