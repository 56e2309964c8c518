// pane-watch.json round trip: the service writes its per-terminal observations whole and readers
// get them back validated; a corrupt file is moved aside and reads as missing.

import { readdir, rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WATCH_MAX_GAP_MS } from '../../../service/core/cleanup/pane-watch-carry.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import {
  readPaneWatch,
  watchEntries,
  watchMaxGap,
  writePaneWatch,
} from '../../../service/state/records/pane-watch-file.js';
import { tempDir } from '../../helpers/tree.js';

let paths: StatePaths;
const warnings: string[] = [];
const ctx = { now: () => 1_700_000_000_000, warn: (line: string) => warnings.push(line) };

beforeEach(async () => {
  paths = statePaths(await tempDir('dogsled-pane-watch-'));
  warnings.length = 0;
});

afterEach(async () => {
  await rm(paths.dir, { recursive: true, force: true });
});

describe('pane-watch.json', () => {
  it('reads back what the service wrote, with the gap it used', async () => {
    const panes = {
      term_a: { pane: 'w1:p1', empty_since_ms: 10, observed_ms: 20 },
      term_b: { pane: 'w1:p2', empty_since_ms: null, idle_since_ms: 5, observed_ms: 20 },
    };
    await writePaneWatch(paths, panes, 60_000);
    const read = await readPaneWatch({ paths, ...ctx });
    expect(read).toEqual({ version: 1, max_gap_ms: 60_000, panes });
    expect(watchEntries(read)).toEqual(panes);
    expect(watchMaxGap(read)).toBe(60_000);
  });

  it('reads a missing file as undefined: no entries and the default gap', async () => {
    const read = await readPaneWatch({ paths, ...ctx });
    expect(read).toBeUndefined();
    expect(watchEntries(read)).toEqual({});
    expect(watchMaxGap(read)).toBe(WATCH_MAX_GAP_MS);
  });

  it('keeps fields a newer dogsled wrote in the file, and hands core only the known ones', async () => {
    const entry = { pane: 'w1:p1', empty_since_ms: 1, observed_ms: 2, future: true };
    await writeFile(paths.paneWatch, JSON.stringify({ version: 1, panes: { t: entry }, extra: 1 }));
    const read = await readPaneWatch({ paths, ...ctx });
    expect(read?.panes.t).toEqual(entry);
    expect(watchEntries(read)).toEqual({ t: { pane: 'w1:p1', empty_since_ms: 1, observed_ms: 2 } });
  });

  it('moves a corrupt file aside with one warning', async () => {
    await writeFile(paths.paneWatch, '{"version":1,"panes":{"t":{"pane":3}}}');
    expect(await readPaneWatch({ paths, ...ctx })).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect((await readdir(paths.dir)).some((name) => name.startsWith('pane-watch.json.bad-'))).toBe(true);
  });
});
