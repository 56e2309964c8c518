import { describe, expect, it } from 'vitest';
import {
  lastingFailure,
  socketErrorCategory,
  sshFailureCategory,
  UNREACHABLE_CATEGORIES,
} from '../../../../service/core/fleet/unreachable.js';

// What OpenSSH 9 prints (ssh exits 255), as captured from the peers of test/e2e.
const CHANGED_KEY = [
  '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
  '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
  '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
  'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
  'Host key for [127.0.0.1]:40123 has changed and you have requested strict checking.',
  'Host key verification failed.',
].join('\r\n');

describe('sshFailureCategory', () => {
  it.each([
    ['ssh: connect to host 127.0.0.1 port 40123: Connection refused', 'connection refused'],
    ['ssh: connect to host 10.250.3.2 port 22: Connection timed out', 'timeout'],
    [
      'Connection timed out during banner exchange\r\nConnection to 127.0.0.1 port 40123 timed out',
      'timeout',
    ],
    ['dogsled-p1-h1@127.0.0.1: Permission denied (publickey).', 'auth'],
    [CHANGED_KEY, 'host key'],
    [
      'No ED25519 host key is known for [127.0.0.1]:40123 and you have requested strict checking.\r\nHost key verification failed.',
      'host key',
    ],
    ['ssh: connect to host 10.250.3.2 port 22: No route to host', 'no route'],
    ['ssh: connect to host 10.250.3.2 port 22: Network is unreachable', 'no route'],
    ['ssh: Could not resolve hostname nosuch.invalid: Name or service not known', 'no route'],
    [
      'kex_exchange_identification: read: Connection reset by peer\r\nConnection reset by 127.0.0.1 port 40123',
      'connection lost',
    ],
    ['Connection closed by 127.0.0.1 port 40123', 'connection lost'],
  ])('%j is %s', (stderr, category) => {
    expect(sshFailureCategory(stderr)).toBe(category);
  });

  it('names no category for text that is not an ssh diagnostic', () => {
    expect(sshFailureCategory('mise ERROR failed to install core:node@20')).toBeUndefined();
    expect(sshFailureCategory('')).toBeUndefined();
  });

  it('puts a refused key before the closed connection that follows it', () => {
    expect(
      sshFailureCategory('Permission denied (publickey).\r\nConnection closed by 10.0.0.1 port 22'),
    ).toBe('auth');
  });
});

describe('socketErrorCategory', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ETIMEDOUT', 'timeout'],
    ['EHOSTUNREACH', 'no route'],
    ['ENETUNREACH', 'no route'],
    ['ENOTFOUND', 'no route'],
    ['ECONNRESET', 'connection lost'],
  ])('%s is %s', (code, category) => {
    expect(socketErrorCategory(code)).toBe(category);
  });

  it('names no category for codes it does not know', () => {
    expect(socketErrorCategory('EWHATEVER')).toBeUndefined();
    expect(socketErrorCategory(undefined)).toBeUndefined();
  });
});

describe('lastingFailure', () => {
  it('names auth and host key as lasting, with the ssh command that reviews the key', () => {
    expect(lastingFailure('auth', 'me@box')).toBe(
      'unreachable: auth (it refuses our key): run `ssh me@box` to review the key',
    );
    expect(lastingFailure('host key', 'box')).toBe(
      'unreachable: host key (its key is not the one on file): run `ssh box` to review the key',
    );
  });

  it('leaves every other category, and a peer that answered, to be waited for', () => {
    const passing = UNREACHABLE_CATEGORIES.filter((c) => c !== 'auth' && c !== 'host key');
    expect(passing).toHaveLength(8);
    for (const category of passing) expect(lastingFailure(category, 'box')).toBeUndefined();
    expect(lastingFailure(null, 'box')).toBeUndefined();
  });
});
