// The retry rule of `herdr agent start` (core/agent-start.ts): final refusals stop at once, unknown
// outcomes retry on the shared backoff up to three tries or the deadline, and the next try adopts a
// child of the right kind already in the pane instead of typing again.

import { describe, expect, it } from 'vitest';
import {
  afterTry,
  type LaunchKey,
  type PaneNow,
  reconcile,
  START_TRIES,
  type StartFacts,
  signsOfLife,
} from '../../../../service/core/agents/start-tries-rule.js';

const unknown = { kind: 'unknown', error: 'internal_error: boom' } as const;

describe('afterTry', () => {
  it('gives up at once on a refusal, whatever is left', () => {
    expect(afterTry({ kind: 'refused', error: 'agent_pane_busy: x' }, 1, 1e9, 0.5)).toEqual({
      kind: 'give-up',
      why: 'refused',
    });
  });

  it('waits 10 s then 20 s (jitter at its middle) and stops after three tries', () => {
    expect(afterTry(unknown, 1, 1e9, 0.5)).toEqual({ kind: 'retry', waitMs: 10_000 });
    expect(afterTry(unknown, 2, 1e9, 0.5)).toEqual({ kind: 'retry', waitMs: 20_000 });
    expect(afterTry(unknown, START_TRIES, 1e9, 0.5)).toEqual({ kind: 'give-up', why: 'tries' });
  });

  it('fails at once when the wait would outlast the deadline', () => {
    expect(afterTry(unknown, 1, 10_000, 0.5)).toEqual({ kind: 'give-up', why: 'deadline' });
    expect(afterTry(unknown, 1, 10_001, 0.5)).toEqual({ kind: 'retry', waitMs: 10_000 });
  });

  it('scales the schedule for tests without changing its shape', () => {
    expect(afterTry(unknown, 2, 1e9, 0.5, 0.01)).toEqual({ kind: 'retry', waitMs: 200 });
  });
});

describe('reconcile', () => {
  const pane = (over: Partial<PaneNow>): PaneNow => ({
    sameTerminal: true,
    agent: null,
    shellAvailable: true,
    ...over,
  });
  const agent = (kind: string | null) => ({ kind, ready: false, pending: kind === null, status: 'working' });

  it('adopts a child of the requested kind (aliases included) or a pending launch', () => {
    expect(reconcile(pane({ agent: agent('pi') }), 'pi')).toEqual({ kind: 'adopt' });
    expect(reconcile(pane({ agent: agent('claude-code') }), 'claude')).toEqual({ kind: 'adopt' });
    expect(reconcile(pane({ agent: agent(null) }), 'codex')).toEqual({ kind: 'adopt' });
  });

  it('starts again in an empty shell', () => {
    expect(reconcile(pane({}), 'pi')).toEqual({ kind: 'start' });
  });

  it('never types into a pane with another agent, a running command or a new terminal', () => {
    expect(reconcile(pane({ agent: agent('codex') }), 'pi')).toEqual({
      kind: 'unknown',
      error: 'the pane runs codex, not pi',
    });
    expect(reconcile(pane({ shellAvailable: false }), 'pi').kind).toBe('unknown');
    expect(reconcile(pane({ sameTerminal: false }), 'pi').kind).toBe('unknown');
  });
});

describe('a pane gone before the start was confirmed', () => {
  const gone: PaneNow = { sameTerminal: false, agent: null, shellAvailable: false };

  it('is a start that finished when the child left a sign of life, and unknown without one', () => {
    expect(reconcile(gone, 'claude', ['done mark'])).toEqual({ kind: 'finished', signs: ['done mark'] });
    expect(reconcile(gone, 'claude', [])).toEqual({
      kind: 'unknown',
      error: 'the pane was closed or replaced since the last try',
    });
  });

  it('ignores signs while the pane is still there: what runs in it decides', () => {
    const here: PaneNow = { sameTerminal: true, agent: null, shellAvailable: true };
    expect(reconcile(here, 'pi', ['transcript'])).toEqual({ kind: 'start' });
  });
});

describe('signsOfLife', () => {
  const key: LaunchKey = { launch: 'l_1', item: 'i_1', terminal: 'term_a', createdMs: 1_000 };
  const none: StartFacts = { marks: [], item: null, inbox: [], outbox: [], transcript: false };
  const mark = (over: Partial<StartFacts['marks'][number]>) => ({
    launch: 'l_1',
    item: 'i_1',
    terminal_id: 'term_a',
    ...over,
  });
  const sent = (terminal: string | null, ref: string | null, created_ms = 2_000) => ({
    sender: { terminal },
    ref,
    created_ms,
  });

  it('finds none in an empty state dir (a child that crashed before any sign of life)', () => {
    expect(signsOfLife(key, none)).toEqual([]);
  });

  it("takes a done mark of this launch (or of its item when the mark names no launch) in this launch's terminal", () => {
    expect(signsOfLife(key, { ...none, marks: [mark({})] })).toEqual(['done mark']);
    expect(signsOfLife(key, { ...none, marks: [mark({ launch: null })] })).toEqual(['done mark']);
  });

  it('never takes a mark of another terminal (a pane id reused), another launch, or a bare item match', () => {
    const marks = [
      mark({ terminal_id: 'term_b' }),
      mark({ launch: 'l_2' }),
      mark({ launch: 'l_2', item: 'i_1' }),
      mark({ terminal_id: null }),
    ];
    expect(signsOfLife(key, { ...none, marks })).toEqual([]);
    expect(signsOfLife({ ...key, item: null }, { ...none, marks: [mark({ launch: null })] })).toEqual([]);
  });

  it("takes the reply the service captured onto the launch's item, in its terminal only", () => {
    const item = { id: 'i_1', terminal_id: 'term_a', reply: 'Done.' };
    expect(signsOfLife(key, { ...none, item })).toEqual(['reply']);
    expect(signsOfLife(key, { ...none, item: { ...item, reply: null } })).toEqual([]);
    expect(signsOfLife(key, { ...none, item: { ...item, terminal_id: 'term_b' } })).toEqual([]);
    expect(signsOfLife(key, { ...none, item: { ...item, id: 'i_2' } })).toEqual([]);
  });

  it('takes inbox records the child sent or the service posted for it, never older ones or a close', () => {
    expect(signsOfLife(key, { ...none, inbox: [sent('term_a', null)] })).toEqual(['inbox record']);
    expect(signsOfLife(key, { ...none, inbox: [sent('term_x', 'reply:i_1')] })).toEqual(['inbox record']);
    expect(signsOfLife(key, { ...none, inbox: [sent('term_x', 'blocked:i_1:5')] })).toEqual(['inbox record']);
    const nothing = [
      sent('term_a', null, 999),
      sent('term_x', 'closed:i_1'),
      sent('term_x', 'branch:i_1:feat'),
      sent('term_x', 'reply:i_10'),
      sent('term_x', 'blocked:i_10:5'),
      sent(null, null),
    ];
    expect(signsOfLife(key, { ...none, inbox: nothing })).toEqual([]);
  });

  it('takes outbox records for an owner elsewhere: the reply or a blocked report, not a close or a branch', () => {
    const post = (ref: string, item = 'i_1', created_ms = 2_000) => ({ item, ref, created_ms });
    expect(signsOfLife(key, { ...none, outbox: [post('reply:i_1')] })).toEqual(['outbox record']);
    expect(signsOfLife(key, { ...none, outbox: [post('blocked:i_1:7')] })).toEqual(['outbox record']);
    const nothing = [
      post('closed:i_1'),
      post('branch:i_1:x'),
      post('reply:i_1', 'i_1', 10),
      post('reply:i_2', 'i_2'),
    ];
    expect(signsOfLife(key, { ...none, outbox: nothing })).toEqual([]);
  });

  it('takes a transcript that names the task file, and lists every sign found in order', () => {
    expect(signsOfLife(key, { ...none, transcript: true })).toEqual(['transcript']);
    const all: StartFacts = {
      marks: [mark({})],
      item: { id: 'i_1', terminal_id: 'term_a', reply: 'x' },
      inbox: [sent('term_a', null)],
      outbox: [{ item: 'i_1', ref: 'reply:i_1', created_ms: 2_000 }],
      transcript: true,
    };
    expect(signsOfLife(key, all)).toEqual([
      'done mark',
      'reply',
      'inbox record',
      'outbox record',
      'transcript',
    ]);
  });
});
