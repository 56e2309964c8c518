// Setup file of every project: removes the temp dirs a test file made (test/helpers/tree.ts) once
// the file is done. Registered before the file's own hooks, so it runs after them (after-hooks run
// in reverse): a dir the file still needs in its afterAll (a service it stops there) is still there.

import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { killStillFrozen } from './frozen-procs.js';
import { removeTempDirs } from './tree.js';

// Its own timeout, past any project's hookTimeout: emptying a file's trees (whole repositories,
// bundles) on a machine loaded many times over its cores took longer than the unit project's 10 s.
afterAll(async () => {
  // A command a test froze inside a lock and never resumed (it failed first) would outlive the file.
  await killStillFrozen();
  const file = expect.getState().testPath;
  const left = await removeTempDirs(file === undefined ? undefined : relative(process.cwd(), file));
  if (left.length > 0) throw new Error(`temp dirs this file made could not be removed: ${left.join(', ')}`);
}, 300_000);
