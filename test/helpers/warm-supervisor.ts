// The job supervisor a running `serve` keeps warm (service/daemon/warm-worker.ts), found in the
// process table by its state dir and its DOGSLED_EXEC_WARM marker.

import { readdir, readFile, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { waitFor } from './wait.js';

/** Live (not zombie) warm supervisors of `stateDir`. */
export async function warmPids(stateDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const vars = (await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '')).split('\0');
    if (!vars.includes(`DOGSLED_STATE=${stateDir}`) || !vars.includes('DOGSLED_EXEC_WARM=1')) continue;
    const state = (await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')).split(') ')[1]?.[0];
    if (state !== undefined && state !== 'Z') found.push(Number(name));
  }
  return found;
}

/** Once nothing runs: exactly one warm supervisor (not `not`), listening on supervisor.sock; its pid. */
export function theWarmOne(stateDir: string, not?: number): Promise<number> {
  return waitFor(
    'one warm supervisor listening',
    async () => {
      const pids = await warmPids(stateDir);
      if (pids.length !== 1 || pids[0] === not) return undefined;
      const listening = await stat(join(stateDir, 'supervisor.sock')).then(
        (info) => info.isSocket(),
        () => false,
      );
      return listening ? pids[0] : undefined;
    },
    { timeoutMs: 20_000 },
  );
}

/** One line sent to `stateDir`'s supervisor.sock, as a launch or a pane's wrapper sends it; what comes back until the supervisor closes. */
export function claimLine(
  stateDir: string,
  line: string,
  encoding: BufferEncoding = 'utf8',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(join(stateDir, 'supervisor.sock'));
    let heard = '';
    socket.setEncoding(encoding);
    socket.on('connect', () => socket.write(line));
    socket.on('data', (d: string) => {
      heard += d;
    });
    socket.on('end', () => resolve(heard));
    socket.on('error', reject);
  });
}
