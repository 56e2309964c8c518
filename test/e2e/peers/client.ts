// The caller's side of the test peers: a key pair, a private ssh_config with one Host entry per peer
// (user, address, port, identity, a private known_hosts, no global files, BatchMode), and an `ssh`
// wrapper that adds `-F` with that config. Code under test runs that wrapper as its `ssh`, so it
// honours "the user's config" exactly as it would ~/.ssh/config.

import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { shellWord } from '../../../service/core/common/shell-quote.js';
import { run } from './procs.js';

export interface ClientHost {
  alias: string;
  hostname: string;
  port: number;
  user: string;
}

export interface KnownEntry {
  hostname: string;
  port: number;
  /** `type base64` of the host's public key. */
  key: string;
  /** Written as ssh-keygen -H writes it. */
  hashed: boolean;
}

export interface Client {
  dir: string;
  identity: string;
  publicKey: string;
  config: string;
  knownHosts: string;
  /** The wrapper: `ssh -F config "$@"`. */
  ssh: string;
  writeConfig: (hosts: readonly ClientHost[]) => Promise<void>;
  writeKnownHosts: (entries: readonly KnownEntry[]) => Promise<void>;
}

export async function createClient(dir: string): Promise<Client> {
  const identity = join(dir, 'id_ed25519');
  await run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'dogsled-test-client', '-f', identity]);
  const publicKey = await readFile(`${identity}.pub`, 'utf8');
  const config = join(dir, 'ssh_config');
  const knownHosts = join(dir, 'known_hosts');
  const ssh = join(dir, 'ssh');
  await writeFile(ssh, `#!/bin/sh\nexec /usr/bin/ssh -F ${shellWord(config)} "$@"\n`);
  await chmod(ssh, 0o755);
  const quoted = (path: string): string => `"${path}"`;
  return {
    dir,
    identity,
    publicKey,
    config,
    knownHosts,
    ssh,
    writeConfig: async (hosts) => {
      const blocks = hosts.map((host) =>
        [
          `Host ${host.alias}`,
          `  HostName ${host.hostname}`,
          `  Port ${host.port}`,
          `  User ${host.user}`,
        ].join('\n'),
      );
      const common = [
        'Host *',
        `  IdentityFile ${quoted(identity)}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${quoted(knownHosts)}`,
        '  GlobalKnownHostsFile /dev/null',
        '  StrictHostKeyChecking yes',
        '  BatchMode yes',
      ].join('\n');
      await writeFile(config, `${[...blocks, common].join('\n\n')}\n`);
    },
    writeKnownHosts: async (entries) => {
      const lines: string[] = [];
      for (const entry of entries) {
        const name = entry.port === 22 ? entry.hostname : `[${entry.hostname}]:${entry.port}`;
        const line = `${name} ${entry.key}\n`;
        if (!entry.hashed) {
          lines.push(line);
          continue;
        }
        // The real tool hashes the name, so the reader is checked against what OpenSSH writes.
        const scratch = join(dir, `hash-${lines.length}`);
        await writeFile(scratch, line);
        await run(['ssh-keygen', '-q', '-H', '-f', scratch]);
        lines.push(await readFile(scratch, 'utf8'));
        await rm(scratch, { force: true });
        await rm(`${scratch}.old`, { force: true });
      }
      await writeFile(knownHosts, lines.join(''));
    },
  };
}

/** `type base64` from a public key line (`type base64 comment`). */
export function keyOf(publicKeyLine: string): string {
  return publicKeyLine.trim().split(/\s+/).slice(0, 2).join(' ');
}
