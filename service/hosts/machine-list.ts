// Herdr's saved machines for the fleet, read at most once per 10 s on this host (the peer cache's
// spacing, core/peer-reads.ts): `herdr machine list` is a process start, and status, place and run
// would otherwise pay one on every call whenever a herdr binary is on PATH. The list is shared in
// machine-list.json, keyed by the binary and the HOME and XDG_CONFIG_HOME it runs with; a failed
// read is not kept (the next caller asks Herdr again). `dogsled machine` reads fresh and drops the
// entry after a change.

import { rm } from 'node:fs/promises';
import type { MachineList } from '../core/fleet/fleet-types.js';
import { PEER_READ_EVERY_MS } from '../core/fleet/peer-reads.js';
import { readState, writeState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { ensureStateDir } from '../state/paths.js';
import { MachineListSchema } from '../state/schemas/peer-schemas.js';
import { findHerdrBinary } from '../terminal/herdr/locate.js';
import type { Machine } from '../terminal/port-records.js';

export interface MachineListIO extends Pick<StateIO, 'paths' | 'now' | 'warn'> {
  env: NodeJS.ProcessEnv;
}

/**
 * The saved machines (null: no herdr binary, or no machine verbs), from the shared entry when it is
 * this Herdr's and younger than 10 s, else from `herdr machine list`; `fresh` always asks Herdr.
 */
export async function machineList(
  io: MachineListIO,
  timeoutMs: number,
  options: { fresh?: boolean } = {},
): Promise<Machine[] | null> {
  const binary = await findHerdrBinary(io.env);
  if (binary === undefined) return null;
  // Herdr's machine verbs load only where a herdr binary is: in the hot bundles they are a file of
  // their own (scripts/build.mjs, COLD).
  const { checkedMachines, listMachines } = await import('../terminal/herdr/herdr-machines.js');
  const key = { binary, home: io.env.HOME ?? null, xdg_config_home: io.env.XDG_CONFIG_HOME ?? null };
  const now = io.now();
  if (!options.fresh) {
    const cached = await readState(io.paths.machineList, MachineListSchema, io).catch(() => undefined);
    if (cached !== undefined && sameHerdr(cached, key) && fresh(cached, now)) {
      // A damaged entry is a reply that did not check: ask Herdr instead.
      const machines = checkedOrUndefined(cached.machines, checkedMachines);
      if (machines !== undefined) return machines;
    }
  }
  const machines = await listMachines(binary, io.env, timeoutMs);
  const entry: MachineList = { version: 1, ...key, read_ms: now, machines };
  // Sharing is an optimisation: a state dir that cannot take the entry costs the next caller a read.
  await ensureStateDir(io.paths.dir)
    .then(() => writeState(io.paths.machineList, MachineListSchema, entry))
    .catch(() => undefined);
  return machines;
}

/** Forgets the shared list, after a change made through `herdr machine`. */
export async function forgetMachineList(io: Pick<StateIO, 'paths'>): Promise<void> {
  await rm(io.paths.machineList, { force: true }).catch(() => undefined);
}

function sameHerdr(entry: MachineList, key: Pick<MachineList, 'binary' | 'home' | 'xdg_config_home'>) {
  return (
    entry.binary === key.binary && entry.home === key.home && entry.xdg_config_home === key.xdg_config_home
  );
}

/** Younger than the spacing; an entry from the future (a clock step back) is not trusted. */
function fresh(entry: MachineList, now: number): boolean {
  return entry.read_ms <= now && now - entry.read_ms < PEER_READ_EVERY_MS;
}

function checkedOrUndefined(
  records: MachineList['machines'],
  check: (records: readonly unknown[]) => Machine[],
): Machine[] | null | undefined {
  if (records === null) return null;
  try {
    return check(records);
  } catch {
    return undefined;
  }
}
