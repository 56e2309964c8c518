// Setup file of every project: removes the temp dirs a test file made (test/helpers/tree.ts) once
// the file is done. Registered before the file's own hooks, so it runs after them (after-hooks run
// in reverse): a dir the file still needs in its afterAll (a service it stops there) is still there.

import { afterAll } from 'vitest';
import { removeTempDirs } from './tree.js';

afterAll(async () => {
  const left = await removeTempDirs();
  if (left.length > 0) throw new Error(`temp dirs this file made could not be removed: ${left.join(', ')}`);
});
