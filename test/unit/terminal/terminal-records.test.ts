// Herdr records are read loosely: new fields survive, optional fields may be absent, and a status
// this version does not know reads as `unknown` instead of failing the reply.

import { describe, expect, it } from 'vitest';
import {
  AgentSchema,
  ListingSchema,
  PaneSchema,
  parseRecord,
} from '../../../service/terminal/port-records.js';
import { TerminalError } from '../../../service/terminal/terminal-errors.js';

const pane = {
  pane_id: 'w1:pA',
  terminal_id: 'term_63a1f0c2d9e12',
  workspace_id: 'w1',
  tab_id: 'w1:t1',
  focused: false,
  agent_status: 'unknown',
  revision: 0,
};

describe('records', () => {
  it('keep fields Herdr adds and accept omitted optional fields', () => {
    const parsed = parseRecord(PaneSchema, { ...pane, future_field: { x: 1 } }, 'pane.get');
    expect(parsed.future_field).toEqual({ x: 1 });
    expect(parsed.cwd).toBeUndefined();
    expect(parsed.tokens).toBeUndefined();
  });

  it('read an unknown agent status as unknown', () => {
    expect(parseRecord(PaneSchema, { ...pane, agent_status: 'sleeping' }, 'pane.get').agent_status).toBe(
      'unknown',
    );
  });

  it('read omitted launch flags as absent (false)', () => {
    const agent = parseRecord(
      AgentSchema,
      { ...pane, name: 'rev', agent: 'codex', state_change_seq: 3 },
      'agent.get',
    );
    expect(agent.launch_pending).toBeUndefined();
    expect(agent.interactive_ready).toBeUndefined();
  });

  it('fail as protocol with the path of a field of the wrong type', () => {
    const bad = { workspaces: [], tabs: [], panes: [{ ...pane, focused: 'no' }], agents: [] };
    let error: unknown;
    try {
      parseRecord(ListingSchema, bad, 'session.snapshot');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TerminalError);
    expect((error as TerminalError).code).toBe('protocol');
    expect((error as TerminalError).message).toContain('panes.0.focused');
  });
});
