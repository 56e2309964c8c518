// What the user's OpenSSH configuration says about a host, for the ssh2 pool, which reads no config of
// its own: `ssh -G HOST` prints the resolved settings (aliases, Match blocks and defaults applied);
// this keeps the ones a direct connection needs. Identity file names still hold `~` and `%` tokens,
// expanded here as ssh would.

import { hostname as localHostname, userInfo } from 'node:os';
import { DogsledError } from '../core/common/errors.js';
import { stripEscapes } from '../core/text/clean.js';
import { runProcess } from '../process/run-process.js';
import { abortReason, checkHost } from './types.js';

export interface ResolvedHost {
  /** The alias the caller asked for. */
  alias: string;
  hostname: string;
  port: number;
  user: string;
  identityFiles: string[];
  identitiesOnly: boolean;
  userKnownHostsFiles: string[];
  globalKnownHostsFiles: string[];
  hostKeyAlias: string | undefined;
  /** ProxyJump or ProxyCommand: a route the pool cannot take itself. */
  proxy: string | undefined;
}

export interface ResolveOptions {
  bin?: string;
  extraArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** `ssh -G` reads files only; a config that takes longer is broken. */
const RESOLVE_TIMEOUT_MS = 10_000;

export async function resolveHost(alias: string, options: ResolveOptions = {}): Promise<ResolvedHost> {
  checkHost(alias);
  const result = await runProcess(options.bin ?? 'ssh', [...(options.extraArgs ?? []), '-G', '--', alias], {
    env: options.env ?? process.env,
    timeoutMs: Math.min(options.timeoutMs ?? RESOLVE_TIMEOUT_MS, RESOLVE_TIMEOUT_MS),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.aborted && options.signal) throw abortReason(options.signal);
  if (result.exitCode !== 0 || result.timedOut) {
    const why = stripEscapes(result.stderr.toString('utf8')).trim().split('\n').at(-1) || 'no reason given';
    throw new DogsledError(`peer ${alias}: ssh -G cannot resolve it: ${why}`);
  }
  const me = userInfo();
  return parseSshG(result.stdout.toString('utf8'), alias, {
    home: me.homedir,
    localUser: me.username,
    uid: me.uid,
    localHost: localHostname(),
  });
}

export interface LocalFacts {
  home: string;
  localUser: string;
  uid: number;
  localHost: string;
}

/** The settings of one `ssh -G` output (lowercase keys, one per line; repeated keys accumulate). */
export function parseSshG(text: string, alias: string, local: LocalFacts): ResolvedHost {
  const values = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const key = line.slice(0, space).toLowerCase();
    const list = values.get(key) ?? [];
    list.push(line.slice(space + 1).trim());
    values.set(key, list);
  }
  const one = (key: string): string | undefined => values.get(key)?.[0];
  const hostname = one('hostname') ?? alias;
  const port = Number(one('port') ?? '22');
  const user = one('user') ?? local.localUser;
  const tokens = { ...local, alias, hostname, port, user };
  // One identity file per line (its name may hold spaces); known_hosts lists share a line, split on
  // spaces as ssh -G prints them (a known_hosts path with a space cannot be told apart there).
  const usable = (file: string): boolean => file !== '' && file !== 'none';
  const lines = (key: string): string[] => (values.get(key) ?? []).filter(usable);
  const files = (key: string): string[] =>
    lines(key)
      .flatMap((value) => value.split(/\s+/))
      .filter(usable);
  const proxyJump = one('proxyjump');
  const proxyCommand = one('proxycommand');
  return {
    alias,
    hostname,
    port: Number.isInteger(port) && port > 0 && port < 65536 ? port : 22,
    user,
    identityFiles: lines('identityfile').map((file) => expandTokens(file, tokens)),
    identitiesOnly: one('identitiesonly') === 'yes',
    userKnownHostsFiles: files('userknownhostsfile').map((file) => expandTokens(file, tokens)),
    globalKnownHostsFiles: files('globalknownhostsfile').map((file) => expandTokens(file, tokens)),
    hostKeyAlias: one('hostkeyalias'),
    proxy:
      proxyJump && proxyJump !== 'none'
        ? proxyJump
        : proxyCommand && proxyCommand !== 'none'
          ? proxyCommand
          : undefined,
  };
}

/** ssh's `~` and `%` tokens in file names (ssh_config(5), TOKENS); an unknown token stays as is. */
export function expandTokens(
  file: string,
  t: { alias: string; hostname: string; port: number; user: string } & LocalFacts,
): string {
  const tilde = file === '~' ? t.home : file.startsWith('~/') ? `${t.home}${file.slice(1)}` : file;
  const table: Record<string, string> = {
    '%': '%',
    d: t.home,
    h: t.hostname,
    i: String(t.uid),
    l: t.localHost,
    n: t.alias,
    p: String(t.port),
    r: t.user,
    u: t.localUser,
  };
  return tilde.replace(/%(.)/g, (whole, key: string) => table[key] ?? whole);
}
