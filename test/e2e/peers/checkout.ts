// The caller's repository for fleet tests: the shared origin (origin.ts) and the caller's clone of
// it under the caller's home, named `name` (a name a shell would split shows that a path travels as
// data).

import { join } from 'node:path';
import type { Fleet } from './fleet.js';
import { makeOrigin } from './origin.js';

export { git } from './origin.js';

export async function callerCheckout(
  fleet: Fleet,
  name: string,
): Promise<{ origin: string; checkout: string }> {
  const checkout = join(fleet.box.home, 'src', name);
  return { origin: await makeOrigin(fleet, [checkout]), checkout };
}
