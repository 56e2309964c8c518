// Hosts on a real fleet bus for tests: each a sandbox (its own state directory and home) with
// `[fleet] bus` and its own id, a running `serve`, and optionally its own nkey user whose
// permissions are the README's sample server configuration (the block in "The fleet" section, read
// from README.md itself, so the documented configuration is the one tested).

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createUser, type KeyPair } from '@nats-io/nkeys';
import { exited, ROOT, runCli, type Sandbox, sandbox, startCli } from './cli.js';
import { waitFor } from './wait.js';

export interface BusUser {
  id: string;
  key: KeyPair;
}

export function busUser(id: string): BusUser {
  return { id, key: createUser() };
}

/** The text of a `.creds` file for `user` (nkey users ignore the JWT; the seed signs the nonce). */
export function credsText(user: BusUser): string {
  const seed = new TextDecoder().decode(user.key.getSeed());
  return `-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.x\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
}

/**
 * The README's server configuration for `users`: its `authorization` block with one user entry per
 * host (the sample's entry, `alpha` replaced by the host's id and its placeholder by the public key).
 */
export async function readmeAuthorization(users: readonly BusUser[]): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const fleet = readme.slice(readme.indexOf('## The fleet'), readme.indexOf('## Peers (transport)'));
  const block = /```conf\n([\s\S]*?)```/.exec(fleet)?.[1];
  if (block === undefined) throw new Error('README: no conf block in The fleet');
  const entry = /^( *\{ nkey: [\s\S]*?\n *\} \}\n)/m.exec(block)?.[1];
  if (entry === undefined) throw new Error("README: no user entry in the fleet's conf block");
  const entries = users
    .map((user) => entry.replaceAll('alpha', user.id).replace(/UA…[^,]*…/, user.key.getPublicKey()))
    .join('');
  return block.replace(/^jetstream .*\n/m, '').replace(entry, entries);
}

export interface BusHost {
  id: string;
  box: Sandbox;
  serve: ReturnType<typeof startCli>;
  /** The environment the service runs with (the sandbox's plus the caller's extras). */
  env: NodeJS.ProcessEnv;
}

export interface BusHostOptions {
  /** Connects as this user (a creds file in the sandbox's home). */
  user?: BusUser;
  /** Config text after the roomy placement policy and before `[fleet]`. */
  config?: string;
  env?: NodeJS.ProcessEnv;
  interval?: string;
}

/** A policy under which any host here takes work, whatever the machine's real load. */
export const ROOMY_POLICY =
  'free_core_fraction_min = 0.0\nmemory_reserve_bytes = 0\ndisk_free_min_percent = 0\nreservation_load = 0.0\n';

export async function startBusHost(id: string, url: string, options: BusHostOptions = {}): Promise<BusHost> {
  const box = await sandbox();
  let creds = '';
  if (options.user) {
    await writeFile(join(box.home, 'nats.creds'), credsText(options.user), { mode: 0o600 });
    creds = 'creds = "~/nats.creds"\n';
  }
  await writeFile(
    box.configPath,
    `${ROOMY_POLICY}${options.config ?? ''}[fleet]\nbus = "${url}"\nid = "${id}"\n${creds}`,
  );
  const env = { ...box.env, ...options.env };
  const serve = startCli(['serve', '--interval', options.interval ?? '0.5'], env);
  return { id, box, serve, env };
}

/** Starts the host's service again (after a stop or a crash), with the same state and config. */
export function restartBusHost(host: BusHost, env: NodeJS.ProcessEnv = {}): void {
  host.serve = startCli(['serve', '--interval', '0.5'], { ...host.env, ...env });
}

export async function stopBusService(host: BusHost, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (host.serve.exitCode !== null || host.serve.signalCode !== null) return;
  host.serve.kill('SIGCONT');
  host.serve.kill(signal);
  await exited(host.serve);
}

export async function stopBusHost(host: BusHost): Promise<void> {
  await stopBusService(host);
  await host.box.cleanup();
}

/** `status --json` of `host`, parsed. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON report, asserted field by field
export async function busStatus(host: BusHost, env: NodeJS.ProcessEnv = {}): Promise<any> {
  const result = await runCli(['status', '--json'], { ...host.box.env, ...env });
  if (result.code !== 0) throw new Error(`status: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Waits until `host` sees each of `others` on the bus, fresh and (when asked) taking work. */
export async function untilSeen(
  host: BusHost,
  others: readonly string[],
  options: { eligible?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  await waitFor(
    `${host.id} to see ${others.join(', ')}`,
    async () => {
      type View = { id: string; unreachable: string | null; headroom: { eligible: boolean } };
      const seen = new Map(((await busStatus(host)).hosts as View[]).map((h) => [h.id, h]));
      return others.every((id) => {
        const view = seen.get(id);
        return view?.unreachable === null && (!options.eligible || view.headroom.eligible === true);
      })
        ? true
        : undefined;
    },
    { timeoutMs: options.timeoutMs ?? 20_000, intervalMs: 100 },
  );
}
