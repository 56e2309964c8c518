// The test knobs: each counts only with DOGSLED_TEST=1 (the spec's STALL_MS always), reads as its
// type says (a positive integer of milliseconds, a strict integer that is an error when malformed,
// a fraction, or text), and the README's Development table lists exactly the knobs the module has.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  KNOB_NAMES,
  type KnobName,
  knobVariable,
  testKnob,
} from '../../../../service/core/common/test-knobs.js';

const on = (name: KnobName, value: string) => ({ DOGSLED_TEST: '1', [knobVariable(name)]: value });

describe('testKnob', () => {
  it('reads nothing without DOGSLED_TEST=1, whatever the variable holds', () => {
    for (const name of KNOB_NAMES.filter((knob) => knob !== 'STALL_MS')) {
      const value = name === 'LAUNCH_BACKOFF_SCALE' ? '0.5' : '1500';
      expect(testKnob({ [knobVariable(name)]: value }, name), name).toBeUndefined();
      expect(testKnob({ DOGSLED_TEST: 'true', [knobVariable(name)]: value }, name), name).toBeUndefined();
      expect(testKnob(on(name, value), name), name).toBeDefined();
    }
  });

  it("reads the spec's DOGSLED_TEST_STALL_MS without DOGSLED_TEST=1, as its raw text", () => {
    expect(testKnob({ DOGSLED_TEST_STALL_MS: '1500' }, 'STALL_MS')).toBe('1500');
    // stallThreshold (core/agents/stall.ts) warns about a bad one, so the text reaches it unjudged.
    expect(testKnob({ DOGSLED_TEST_STALL_MS: 'soon' }, 'STALL_MS')).toBe('soon');
    expect(testKnob({ DOGSLED_TEST_STALL_MS: '' }, 'STALL_MS')).toBeUndefined();
  });

  it('reads a milliseconds knob as a positive integer, and leaves anything else unset', () => {
    expect(testKnob(on('PEERS_PACE_MS', '250'), 'PEERS_PACE_MS')).toBe(250);
    for (const bad of ['0', '-5', 'soon', '1.5', 'Infinity', '9007199254740993', '']) {
      expect(testKnob(on('PEERS_PACE_MS', bad), 'PEERS_PACE_MS'), bad).toBeUndefined();
    }
  });

  it('reads the test clock and the stop grace strictly: a malformed value is a one-line error', () => {
    expect(testKnob(on('NOW_MS', '1700000000000'), 'NOW_MS')).toBe(1_700_000_000_000);
    expect(testKnob(on('STOP_GRACE_MS', '0'), 'STOP_GRACE_MS')).toBe(0);
    expect(() => testKnob(on('NOW_MS', 'noon'), 'NOW_MS')).toThrow(
      'DOGSLED_TEST_NOW_MS: "noon" is not an integer (Unix milliseconds)',
    );
    expect(() => testKnob(on('STOP_GRACE_MS', '-1'), 'STOP_GRACE_MS')).toThrow(
      'DOGSLED_TEST_STOP_GRACE_MS: "-1" is not an integer',
    );
    // Without DOGSLED_TEST=1 a malformed value is not read at all, so it cannot fail a real command.
    expect(testKnob({ DOGSLED_TEST_NOW_MS: 'noon' }, 'NOW_MS')).toBeUndefined();
  });

  it('reads the backoff scale as a fraction above 0 and at most 1', () => {
    expect(testKnob(on('LAUNCH_BACKOFF_SCALE', '0.01'), 'LAUNCH_BACKOFF_SCALE')).toBe(0.01);
    expect(testKnob(on('LAUNCH_BACKOFF_SCALE', '1'), 'LAUNCH_BACKOFF_SCALE')).toBe(1);
    for (const bad of ['0', '2', 'half']) {
      expect(testKnob(on('LAUNCH_BACKOFF_SCALE', bad), 'LAUNCH_BACKOFF_SCALE'), bad).toBeUndefined();
    }
  });

  it('reads a text knob as it is, and an empty one as unset', () => {
    expect(testKnob(on('PROBE_ROOT', '/tmp/proc root'), 'PROBE_ROOT')).toBe('/tmp/proc root');
    expect(testKnob(on('ADMISSION_PAUSE_AT', ''), 'ADMISSION_PAUSE_AT')).toBeUndefined();
  });
});

describe("the README's Development section", () => {
  it('has one table row per knob, in the order the module lists them, and no other knob', async () => {
    const readme = await readFile(join(import.meta.dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `(DOGSLED_TEST_[A-Z_]+)`/gm)].map((match) => match[1]);
    expect(rows).toEqual(KNOB_NAMES.map(knobVariable));
  });
});
