// The lines of a pane's handoff to the warm supervisor (service/core/jobs/warm-handoff-lines.ts):
// every string travels as JSON, so no newline or escape in a variable or a warning cuts or forges a
// line, and anything not exactly a claim or an answer is refused.

import { describe, expect, it } from 'vitest';
import {
  PANE_CLAIM_MAX_BYTES,
  paneClaimLine,
  parsePaneClaim,
  parseSupervisorLine,
  supervisorLine,
} from '../../../service/core/jobs/warm-handoff-lines.js';

const hostile = 'a\nb\r\u001b]0;x\u0007 "q" \\ \u2028 \ud83d\ude00 \udc00';

describe('a pane claim', () => {
  it('is one line that carries any variable, escapes and newlines included', () => {
    const claim = { id: 'j_abc-1_2', command: ['sh', '-c', hostile], env: { HOSTILE: hostile, EMPTY: '' } };
    const line = paneClaimLine(claim);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(parsePaneClaim(line.slice(0, -1))).toEqual(claim);
    expect(parsePaneClaim(paneClaimLine({ ...claim, command: null }).slice(0, -1))).toEqual({
      ...claim,
      command: null,
    });
  });

  it('refuses anything else', () => {
    const good = { id: 'j_x', command: null, env: {} };
    for (const text of [
      'j_x',
      'pane',
      'pane ',
      'pane null',
      'pane []',
      'pane "j_x"',
      `pane ${JSON.stringify({ ...good, id: 'j_../x' })}`,
      `pane ${JSON.stringify({ ...good, id: `j_${'a'.repeat(61)}` })}`,
      `pane ${JSON.stringify({ ...good, command: 'true' })}`,
      `pane ${JSON.stringify({ ...good, command: ['a', 1] })}`,
      `pane ${JSON.stringify({ ...good, env: [] })}`,
      `pane ${JSON.stringify({ ...good, env: { A: 1 } })}`,
      `pane ${JSON.stringify({ ...good, env: { 'A=B': '' } })}`,
      `pane ${JSON.stringify({ ...good, env: { '': 'x' } })}`,
      `pane ${JSON.stringify({ ...good, env: { A: 'x\u0000' } })}`,
      `pane ${JSON.stringify(good)} trailing`,
    ]) {
      expect(parsePaneClaim(text), text).toBeUndefined();
    }
    expect(PANE_CLAIM_MAX_BYTES).toBeGreaterThan(64 * 1024);
  });
});

describe("the supervisor's lines", () => {
  it('round-trip, a warning or an error with escapes and newlines staying one line', () => {
    for (const line of [
      { kind: 'ready' },
      { kind: 'ok', pid: 4242 },
      { kind: 'refused' },
      { kind: 'warn', text: hostile },
      { kind: 'exit', code: 0 },
      { kind: 'exit', code: 255 },
      { kind: 'error', message: hostile, exitCode: 2, hint: undefined },
      { kind: 'error', message: 'x', exitCode: 70, hint: 'try y' },
    ] as const) {
      const text = supervisorLine(line);
      expect(text.indexOf('\n')).toBe(text.length - 1);
      expect(parseSupervisorLine(text.slice(0, -1))).toEqual(line);
    }
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      'ok',
      'ok 0',
      'ok -1',
      'ok 1.5',
      'ok 12345678901',
      'exit 256',
      'exit x',
      'warn',
      'warn 3',
      'warn "unterminated',
      'error {}',
      'error {"message":"m","exitCode":300}',
      'error {"message":1,"exitCode":2}',
      'hello there',
    ]) {
      expect(parseSupervisorLine(text), text).toBeUndefined();
    }
  });
});
