// The retry rule of `herdr agent start` (core/agent-start.ts): final refusals stop at once, unknown
// outcomes retry on the shared backoff up to three tries or the deadline, and the next try adopts a
// child of the right kind already in the pane instead of typing again.

import { describe, expect, it } from 'vitest';
import { afterTry, type PaneNow, reconcile, START_TRIES } from '../../service/core/agent-start.js';

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
