// The sidebar's hosts come from the peer cache alone: each enabled [[hosts]] peer with its cached
// snapshot (or as not read yet), never read over SSH by the sidebar.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readSidebarState } from '../../../service/actions/sidebar-state.js';
import { loadConfig } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ PATH: '/nonexistent' });
});
afterEach(async () => {
  await box.cleanup();
});

it('lists this host, then each enabled peer as its cache entry shows it, without reading any', async () => {
  await writeFile(
    box.configPath,
    '[[hosts]]\nid = "netcup"\ntarget = "nowhere.invalid"\n\n[[hosts]]\nid = "momo"\n\n[[hosts]]\nid = "off"\nenabled = false\n',
  );
  const now = Date.now();
  await mkdir(join(box.state, 'peers'), { recursive: true });
  await writeFile(
    join(box.state, 'peers', 'netcup.json'),
    JSON.stringify({
      version: 1,
      id: 'netcup',
      target: 'nowhere.invalid',
      attempt_ms: now,
      read_ms: now - 60_000,
      unreachable: 'timeout',
      failures: 2,
      retry_at_ms: now + 20_000,
      reply: null,
    }),
  );
  const io = {
    paths: statePaths(box.state),
    now: () => now,
    warn: () => undefined,
    env: box.env,
    home: box.home,
    config: await loadConfig(box.configPath, true, box.home),
  };
  const state = await readSidebarState(io, { owner: 'w1:p1' });
  expect(state.hosts.map((h) => [h.id, h.reachable, h.service])).toEqual([
    ['local', true, 'down'],
    ['netcup', false, 'unknown'],
    ['momo', false, 'unknown'],
  ]);
});
