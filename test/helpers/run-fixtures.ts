// Small fixtures for tests that run jobs and waits through the CLI: a fresh local snapshot with or
// without room, and a job script that runs until the test opens its gate file.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { snapshotFixture, writeSnapshot } from './snapshot.js';

/** A fresh snapshot of this host: 8 idle cores has room; 90% busy has none. */
export async function freshHost(state: string, room: boolean): Promise<void> {
  await writeSnapshot(
    state,
    snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: room ? 0 : 0.9 }),
  );
}

/** A shell script that loops until `open()` creates its gate file in `dir`, then prints `done`. */
export function gatedScript(dir: string): { script: string; open: () => Promise<void> } {
  const gate = join(dir, 'gate');
  return {
    script: `while [ ! -e ${gate} ]; do sleep 0.05; done; echo done`,
    open: () => writeFile(gate, ''),
  };
}
