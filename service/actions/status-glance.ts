// The lean `status --line` and `--brief` (hosts/local-glance.ts): this host alone with its service
// up, and for the brief nothing on file that it would count (no items, tickets or sweep pass).
// undefined sends the caller to readHosts/readStatus (status.ts), which answer every other case.

import { access } from 'node:fs/promises';
import { glanceLocalHost } from '../hosts/local-glance.js';
import type { HostView } from '../hosts/view.js';
import type { HostIO } from '../state/io.js';

export async function glanceHosts(io: HostIO): Promise<HostView[] | undefined> {
  const local = await glanceLocalHost(io).catch(() => undefined);
  return local === undefined ? undefined : [local];
}

/** The hosts when items.json, queue.json and sweep.json are all absent: the brief counts nothing. */
export async function glanceBriefHosts(io: HostIO): Promise<HostView[] | undefined> {
  const absent = (path: string) =>
    access(path).then(
      () => false,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    );
  const [hosts, ...none] = await Promise.all([
    glanceHosts(io),
    absent(io.paths.items),
    absent(io.paths.queue),
    absent(io.paths.sweep),
  ]);
  return none.every(Boolean) ? hosts : undefined;
}
