// The host policy file (config.toml): parsed with smol-toml, checked by config-rules.ts, so an unknown
// key (a typo, or a `[hooks]` table this product does not have) is an error naming the key and the
// file. Every failure is one DogsledError line. Loading never writes anything.

import { DogsledError } from '../../core/common/errors.js';
import type { BudgetPolicy } from '../../core/receipts/day-budget.js';
import type { ModelPrice } from '../../core/receipts/prices.js';
import { squeezedLine } from '../../core/text/clean.js';
import { readTomlFile } from '../engine/toml-file.js';
import { type ConfigFile, checkConfigFile } from './config-rules.js';

export interface Config {
  free_core_fraction_min: number;
  memory_reserve_bytes: number;
  disk_free_min_percent: number;
  reservation_load: number;
  reservation_ttl_ms: number;
  /** argv prefix that runs dogsled on a peer; the transport appends ["host", verb, ...]. */
  remote_command: string[];
  cleanup: {
    /** As written in the file. */
    repositories: string[];
    /** The same entries with a leading `~/` (or a lone `~`) replaced by the home directory. */
    repository_paths: string[];
  };
  /** `tmux`: use tmux when Herdr does not answer, even outside tmux (terminal/choice.ts reads it). */
  terminal: 'auto' | 'tmux';
  quota: {
    /** Normalized origin without a trailing slash, e.g. `https://admin.example.net:8443`. */
    management_url: string | null;
    /** Keep a Claude or Codex child queued while its quota pool is exhausted (core/quota-hold.ts). */
    hold_when_exhausted: boolean;
  };
  /** dogsled's own peer list (`[[hosts]]`), used when Herdr has no saved machines. */
  hosts: ConfigHost[];
  /** `[prices]`: models priced over the shipped table (core/receipts/prices.ts), and their date. */
  prices: { as_of: string | null; models: Record<string, ModelPrice> };
  fleet: ConfigFleet;
  /** `[budget]`: USD a day each owner's children, and each host's, may spend before new ones wait. */
  budget: BudgetPolicy;
}

/** `[fleet]`: the NATS bus peers meet on (service/bus); no servers, no bus (SSH peers as ever). */
export interface ConfigFleet {
  /** Server URLs, nats:// or tls://; empty: no bus. */
  bus: string[];
  /** This host's id on the bus; null: the short host name (service/bus picks it). */
  id: string | null;
  /** Credentials file (`~/` expanded); its content is read only when the bus connects. */
  creds: string | null;
  /** CA file for tls:// (`~/` expanded); null: the system's roots. */
  tls_ca: string | null;
}

/** One `[[hosts]]` entry: a peer reached by ssh at `target`, known as `id` (and `label`). */
export interface ConfigHost {
  id: string;
  label: string;
  /** What ssh is given: a Host alias of ~/.ssh/config, a name, or `user@host`. */
  target: string;
  enabled: boolean;
}

export const DEFAULT_CONFIG: Readonly<Config> = Object.freeze({
  free_core_fraction_min: 0.25,
  memory_reserve_bytes: 3_221_225_472,
  disk_free_min_percent: 15,
  reservation_load: 1.0,
  reservation_ttl_ms: 90_000,
  // dogsled on the peer's PATH for a non-interactive SSH command; mise users set their own.
  remote_command: ['dogsled'],
  cleanup: { repositories: [], repository_paths: [] },
  terminal: 'auto',
  quota: { management_url: null, hold_when_exhausted: true },
  hosts: [],
  prices: { as_of: null, models: {} },
  fleet: { bus: [], id: null, creds: null, tls_ca: null },
  budget: { owner_usd_per_day: null, host_usd_per_day: null, hosts: {} },
});

/**
 * Reads the policy at `path`. A missing file means the defaults, unless the user named it (`--config`
 * or `$DOGSLED_CONFIG`): then a missing file is an error.
 */
export async function loadConfig(
  path: string,
  explicit: boolean,
  // node:os only when no home is given: every command's context has one (cli/context.ts).
  home = process.getBuiltinModule('node:os').homedir(),
): Promise<Config> {
  const fail = (problem: string): DogsledError => new DogsledError(`config ${path}: ${problem}`);
  const data = await readTomlFile(path, fail);
  if (data === undefined) {
    if (explicit) throw fail('file not found');
    return structuredClone(DEFAULT_CONFIG) as Config;
  }
  const file: ConfigFile = checkConfigFile(data, fail);
  const repositories = file.cleanup?.repositories ?? [];
  return {
    free_core_fraction_min: file.free_core_fraction_min ?? DEFAULT_CONFIG.free_core_fraction_min,
    memory_reserve_bytes: file.memory_reserve_bytes ?? DEFAULT_CONFIG.memory_reserve_bytes,
    disk_free_min_percent: file.disk_free_min_percent ?? DEFAULT_CONFIG.disk_free_min_percent,
    reservation_load: file.reservation_load ?? DEFAULT_CONFIG.reservation_load,
    reservation_ttl_ms: file.reservation_ttl_ms ?? DEFAULT_CONFIG.reservation_ttl_ms,
    remote_command: file.remote_command ?? [...DEFAULT_CONFIG.remote_command],
    cleanup: { repositories, repository_paths: repositories.map((entry) => expandHome(entry, home)) },
    terminal: file.terminal ?? DEFAULT_CONFIG.terminal,
    quota: {
      management_url: file.quota?.management_url ?? null,
      hold_when_exhausted: file.quota?.hold_when_exhausted ?? DEFAULT_CONFIG.quota.hold_when_exhausted,
    },
    hosts: configHosts(file.hosts ?? [], fail),
    prices: { as_of: file.prices?.as_of ?? null, models: file.prices?.models ?? {} },
    fleet: {
      bus: file.fleet?.bus ?? [],
      id: file.fleet?.id ?? null,
      creds: file.fleet?.creds === undefined ? null : expandHome(file.fleet.creds, home),
      tls_ca: file.fleet?.tls_ca === undefined ? null : expandHome(file.fleet.tls_ca, home),
    },
    budget: {
      owner_usd_per_day: file.budget?.owner ?? null,
      host_usd_per_day: file.budget?.host ?? null,
      hosts: file.budget?.hosts ?? {},
    },
  };
}

/** Defaults filled in (label and target are the id), and each id and label used once. */
function configHosts(
  entries: ReadonlyArray<{
    id: string;
    label?: string | undefined;
    target?: string | undefined;
    enabled?: boolean | undefined;
  }>,
  fail: (problem: string) => DogsledError,
): ConfigHost[] {
  const hosts = entries.map((entry) => ({
    id: entry.id,
    label: entry.label ?? entry.id,
    target: entry.target ?? entry.id,
    enabled: entry.enabled ?? true,
  }));
  const seen = new Set<string>(['local']);
  for (const [i, host] of hosts.entries()) {
    for (const name of new Set([host.id, host.label])) {
      if (seen.has(name)) throw fail(`hosts[${i}]: "${squeezedLine(name)}" names another host already`);
      seen.add(name);
    }
  }
  return hosts;
}

function expandHome(entry: string, home: string): string {
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return `${home}/${entry.slice(2)}`;
  return entry;
}
