// The pool's host key check against known_hosts files written the way OpenSSH writes them: keys made
// by ssh-keygen, names hashed by `ssh-keygen -H`.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hostKeyAlgorithms,
  knownHostsName,
  knownKeysFor,
  readKnownKeys,
  verifyHostKey,
} from '../../../service/transport/known-hosts.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
const keys: Record<string, { line: string; blob: Buffer }> = {};

async function makeKey(name: string, type: string): Promise<void> {
  const path = join(dir, name);
  execFileSync('ssh-keygen', [
    '-q',
    '-t',
    type,
    '-N',
    '',
    '-f',
    path,
    ...(type === 'rsa' ? ['-b', '1024'] : []),
  ]);
  const [kind, base64] = (await readFile(`${path}.pub`, 'utf8')).trim().split(/\s+/) as [string, string];
  keys[name] = { line: `${kind} ${base64}`, blob: Buffer.from(base64, 'base64') };
}

const key = (name: string) => keys[name] as { line: string; blob: Buffer };

beforeAll(async () => {
  dir = await tempDir('dogsled-known-hosts-');
  await Promise.all([
    makeKey('a', 'ed25519'),
    makeKey('b', 'ed25519'),
    makeKey('c', 'ecdsa'),
    makeKey('r', 'rsa'),
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function hashed(line: string): Promise<string> {
  const file = join(dir, `hash-${Math.random()}`);
  await writeFile(file, `${line}\n`);
  execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'pipe' });
  return readFile(file, 'utf8');
}

describe('knownHostsName', () => {
  it('files port 22 under the bare name, another port as [host]:port, an alias as itself', () => {
    expect(knownHostsName('10.0.0.2', 22)).toBe('10.0.0.2');
    expect(knownHostsName('10.0.0.2', 2222)).toBe('[10.0.0.2]:2222');
    expect(knownHostsName('10.0.0.2', 2222, 'build-box')).toBe('build-box');
  });
});

describe('verifyHostKey', () => {
  it('knows a key listed under a plain name, and only for that name', () => {
    const text = `peer.example.com ${key('a').line}\n`;
    expect(verifyHostKey(knownKeysFor(text, 'peer.example.com'), key('a').blob)).toBe('known');
    expect(verifyHostKey(knownKeysFor(text, 'other.example.com'), key('a').blob)).toBe('unknown');
  });

  it('matches a name hashed by ssh-keygen -H, and no other name', async () => {
    const text = await hashed(`[10.250.1.2]:2222 ${key('a').line}`);
    expect(text).toMatch(/^\|1\|/);
    expect(verifyHostKey(knownKeysFor(text, '[10.250.1.2]:2222'), key('a').blob)).toBe('known');
    expect(knownKeysFor(text, '10.250.1.2')).toEqual([]);
  });

  it('calls another key of the same type under that name a change, and refuses it', () => {
    const text = `peer ${key('a').line}\n`;
    expect(verifyHostKey(knownKeysFor(text, 'peer'), key('b').blob)).toBe('changed');
  });

  it('calls a key of a type it has nothing of unknown', () => {
    const text = `peer ${key('c').line}\n`;
    expect(verifyHostKey(knownKeysFor(text, 'peer'), key('a').blob)).toBe('unknown');
  });

  it('refuses a revoked key even when it is also listed', () => {
    const text = `peer ${key('a').line}\n@revoked * ${key('a').line}\n`;
    expect(verifyHostKey(knownKeysFor(text, 'peer'), key('a').blob)).toBe('revoked');
  });

  it('follows wildcards and negation as ssh does', () => {
    const text = `!bad.example.com,*.example.com ${key('a').line}\npeer? ${key('b').line}\n`;
    expect(verifyHostKey(knownKeysFor(text, 'good.example.com'), key('a').blob)).toBe('known');
    expect(verifyHostKey(knownKeysFor(text, 'BAD.example.com'), key('a').blob)).toBe('unknown');
    expect(verifyHostKey(knownKeysFor(text, 'peer1'), key('b').blob)).toBe('known');
    expect(verifyHostKey(knownKeysFor(text, 'peer12'), key('b').blob)).toBe('unknown');
  });

  it('never trusts a host through a certificate authority line or a line that does not parse', () => {
    const text = [
      `@cert-authority * ${key('a').line}`,
      '# comment',
      'peer ssh-ed25519',
      'peer ssh-ed25519 not-base64!!',
      `peer ssh-rsa ${key('a').line.split(' ')[1]}`, // type and blob disagree
      `@unknown-marker peer ${key('a').line}`,
      '',
    ].join('\n');
    expect(verifyHostKey(knownKeysFor(text, 'peer'), key('a').blob)).toBe('unknown');
  });
});

describe('hostKeyAlgorithms', () => {
  it('asks for the key types on file, every RSA signature for an RSA key', () => {
    const text = `peer ${key('c').line}\npeer ${key('r').line}\n`;
    expect(hostKeyAlgorithms(knownKeysFor(text, 'peer'))).toEqual([
      'ecdsa-sha2-nistp256',
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
    ]);
    expect(hostKeyAlgorithms([])).toEqual([]);
  });
});

describe('readKnownKeys', () => {
  it('reads every listed file and skips one that is missing, a directory or a FIFO without hanging', async () => {
    const good = join(dir, 'known_hosts');
    await writeFile(good, `peer ${key('a').line}\n`);
    const directory = join(dir, 'a-directory');
    await mkdir(directory, { recursive: true });
    const fifo = join(dir, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    const found = await readKnownKeys([join(dir, 'missing'), directory, fifo, good], 'peer');
    expect(found.map((k) => k.blob)).toEqual([key('a').blob]);
  });
});
