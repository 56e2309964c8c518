// Host key checking for the pooled ssh2 connection, which reads no known_hosts of its own: the user's
// files as `ssh -G` lists them, with OpenSSH's matching (patterns, `!` negation, `[host]:port`,
// hashed `|1|salt|hash` names, @revoked). A key that matches is known; any other key, unknown or
// changed, is refused. Nothing is ever added to the files: trust is the user's, through ssh.

import { createHmac } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export interface KnownKey {
  marker: 'none' | 'cert-authority' | 'revoked';
  /** The key type inside the blob, e.g. `ssh-ed25519`, `ssh-rsa`. */
  type: string;
  blob: Buffer;
}

export type HostKeyVerdict = 'known' | 'unknown' | 'changed' | 'revoked';

/** The name a host's key is filed under: the alias, else `host` on port 22, else `[host]:port`. */
export function knownHostsName(hostname: string, port: number, alias?: string): string {
  if (alias) return alias;
  return port === 22 ? hostname : `[${hostname}]:${port}`;
}

/** Every key in `text` whose host field matches `name`. Malformed lines are skipped, as ssh does. */
export function knownKeysFor(text: string, name: string): KnownKey[] {
  const keys: KnownKey[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    let marker: KnownKey['marker'] = 'none';
    if (fields[0]?.startsWith('@')) {
      const word = fields.shift();
      if (word === '@revoked') marker = 'revoked';
      else if (word === '@cert-authority') marker = 'cert-authority';
      else continue;
    }
    const [hosts, type, base64] = fields;
    if (!hosts || !type || !base64 || !hostsMatch(hosts, name)) continue;
    const blob = Buffer.from(base64, 'base64');
    if (blob.length === 0 || blobType(blob) !== type) continue;
    keys.push({ marker, type, blob });
  }
  return keys;
}

/** OpenSSH's rule: a revoked key is refused; a matching key is known; another key of the same type is a change. */
export function verifyHostKey(known: readonly KnownKey[], offered: Buffer): HostKeyVerdict {
  if (known.some((key) => key.marker === 'revoked' && key.blob.equals(offered))) return 'revoked';
  const plain = known.filter((key) => key.marker === 'none');
  if (plain.some((key) => key.blob.equals(offered))) return 'known';
  const type = blobType(offered);
  return plain.some((key) => key.type === type) ? 'changed' : 'unknown';
}

/** ssh2's host key algorithms for the key types on file, so the server offers one we know. */
export function hostKeyAlgorithms(known: readonly KnownKey[]): string[] {
  const algorithms: string[] = [];
  for (const key of known) {
    if (key.marker !== 'none') continue;
    const names = key.type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [key.type];
    for (const name of names) if (!algorithms.includes(name)) algorithms.push(name);
  }
  return algorithms;
}

/** The type string an SSH public key blob starts with; '' when the blob is too short to hold one. */
export function blobType(blob: Buffer): string {
  if (blob.length < 4) return '';
  const length = blob.readUInt32BE(0);
  if (length > 64 || blob.length < 4 + length) return '';
  return blob.subarray(4, 4 + length).toString('latin1');
}

/** The keys for `name` in each of `files`; a file that is missing, unreadable or not a regular file adds none. */
export async function readKnownKeys(files: readonly string[], name: string): Promise<KnownKey[]> {
  const keys: KnownKey[] = [];
  for (const file of files) {
    const text = await readRegularFile(file);
    if (text !== undefined) keys.push(...knownKeysFor(text, name));
  }
  return keys;
}

/** Reads only a regular file; O_NONBLOCK so a FIFO in its place can never hang the read. */
async function readRegularFile(path: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

function hostsMatch(field: string, name: string): boolean {
  if (field.startsWith('|1|')) return hashedMatch(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (globMatch(pattern.slice(1), name)) return false;
    } else if (globMatch(pattern, name)) {
      matched = true;
    }
  }
  return matched;
}

/** `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`, as `ssh-keygen -H` and HashKnownHosts write. */
function hashedMatch(field: string, name: string): boolean {
  const [, , salt, hash] = field.split('|');
  if (!salt || !hash) return false;
  const digest = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64');
  return digest === hash;
}

/** ssh's match_pattern: `*` any run, `?` one character, case-insensitive (host names). */
function globMatch(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase();
  const s = name.toLowerCase();
  // Iterative matcher with one backtrack point: linear in practice, no regular expression to escape.
  let pi = 0;
  let si = 0;
  let star = -1;
  let mark = 0;
  while (si < s.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === s[si])) {
      pi++;
      si++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      mark = si;
    } else if (star !== -1) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}
