// A warm supervisor makes Node's stderr stream during its warm-up (jobs/supervisor/exec-warm-up.ts),
// not at the claim, where net's Socket#_destroy of serve's pipe made it on the job's clock. Heard in
// a real process whose stderr is /dev/null, as serve's warm supervisors' often is: the stream's
// module is loaded once warmUp returned, and not by the same process without it.

import { spawnSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
// @ts-expect-error: the build script is plain ESM without types.
import { bundleModules } from '../../../scripts/build.mjs';
import { tempDir } from '../../helpers/tree.js';

const STREAM = 'NativeModule internal/fs/sync_write_stream';

let dir: string;
beforeAll(async () => {
  dir = await tempDir('dogsled-warm-up-');
  await bundleModules({ 'warm-up': 'service/jobs/supervisor/exec-warm-up.ts' }, dir);
  await writeFile(
    join(dir, 'probe.mjs'),
    `import { warmUp } from './warm-up.mjs';
if (process.argv[2] === 'warm') await warmUp();
process.stdout.write(String(process.moduleLoadList.includes(${JSON.stringify(STREAM)})));`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function probe(mode: 'warm' | 'cold'): string {
  const run = spawnSync(process.execPath, [join(dir, 'probe.mjs'), mode], {
    cwd: dir,
    env: { ...process.env, TMPDIR: dir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  expect(run.status).toBe(0);
  return run.stdout;
}

test('the warm-up makes the stderr stream a claim would otherwise make', () => {
  expect(probe('warm')).toBe('true');
});

test('a process on /dev/null that does not warm up has not made it (the probe can tell)', () => {
  expect(probe('cold')).toBe('false');
});
