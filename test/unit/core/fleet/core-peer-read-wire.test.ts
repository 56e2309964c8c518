import { describe, expect, it } from 'vitest';
import {
  PEER_READ_BEAT,
  PEER_READ_HELLO,
  parsePeerReadAnswer,
  parsePeerReadRequest,
  peerReadLine,
} from '../../../../service/core/fleet/peer-read-wire.js';

const request = {
  v: 1,
  verb: 'snapshot',
  host: 'one',
  remote: ['node', '/opt/dogsled.cjs'],
  timeout_ms: 4000,
  max_bytes: 8,
};

describe('peer-read.sock lines', () => {
  it('takes a snapshot request and gives it back as it travelled', () => {
    const line = peerReadLine(parsePeerReadRequest(JSON.stringify(request)) as never);
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual(request);
    expect(PEER_READ_HELLO.endsWith('\n')).toBe(true);
  });

  it('refuses any other verb, a missing host or remote command, and numbers that are not counts', () => {
    const bad = (fields: Record<string, unknown>) =>
      parsePeerReadRequest(JSON.stringify({ ...request, ...fields }));
    expect(bad({ verb: 'launch' })).toBe('only snapshot is read here');
    expect(bad({ v: 2 })).toBe('not a request of this version');
    expect(bad({ host: '' })).toBe('no host');
    expect(bad({ host: 'h'.repeat(1025) })).toBe('no host');
    expect(bad({ host: 7 })).toBe('no host');
    expect(bad({ remote: [] })).toBe('no remote command');
    expect(bad({ remote: ['node', 3] })).toBe('no remote command');
    expect(bad({ remote: Array.from({ length: 65 }, () => 'x') })).toBe('no remote command');
    expect(bad({ timeout_ms: 0 })).toBe('no timeout');
    expect(bad({ timeout_ms: 1.5 })).toBe('no timeout');
    expect(bad({ max_bytes: -1 })).toBe('no size bound');
    expect(parsePeerReadRequest('{')).toBe('not a request');
    expect(parsePeerReadRequest('[]')).toBe('not a request of this version');
  });

  it('reads a reply, an unreachable category and a decline, and nothing else', () => {
    const reply = { ok: true, value: { now_ms: 1 }, exitCode: 0, durationMs: 12 };
    expect(parsePeerReadAnswer(JSON.stringify({ reply }))).toEqual({ reply });
    const refusal = { ok: false, error: 'host: snapshot: no', exitCode: 2, durationMs: 3 };
    expect(parsePeerReadAnswer(JSON.stringify({ reply: refusal }))).toEqual({ reply: refusal });
    expect(parsePeerReadAnswer(JSON.stringify({ unreachable: 'timeout', detail: 'x' }))).toEqual({
      unreachable: 'timeout',
      detail: 'x',
    });
    expect(parsePeerReadAnswer(JSON.stringify({ declined: 'not a peer of this service' }))).toEqual({
      declined: 'not a peer of this service',
    });
    // A category no transport gives, a reply without its value or numbers: not an answer.
    expect(parsePeerReadAnswer(JSON.stringify({ unreachable: 'on fire' }))).toBeUndefined();
    expect(
      parsePeerReadAnswer(JSON.stringify({ reply: { ok: true, exitCode: 0, durationMs: 1 } })),
    ).toBeUndefined();
    expect(parsePeerReadAnswer(JSON.stringify({ reply: { ...reply, exitCode: '0' } }))).toBeUndefined();
    expect(parsePeerReadAnswer(JSON.stringify({ reply: { ...refusal, error: 1 } }))).toBeUndefined();
    expect(parsePeerReadAnswer('not json')).toBeUndefined();
    expect(parsePeerReadAnswer('null')).toBeUndefined();
  });

  it('reads an answer after the beats the service wrote while it read', () => {
    expect(PEER_READ_BEAT.trim()).toBe('');
    const reply = { ok: true as const, value: { now_ms: 1 }, exitCode: 0, durationMs: 12 };
    const line = `${PEER_READ_BEAT.repeat(40)}${peerReadLine({ reply })}`;
    expect(parsePeerReadAnswer(line.slice(0, line.indexOf('\n')))).toEqual({ reply });
  });
});
