// tmux's parsing rules as dogsled works around them (tmux-argv.ts) and the hook-reported agent
// state rule (core/hook-agent-state.ts): plain literals in, plain literals out.

import { describe, expect, it } from 'vitest';
import { hookedAgentState, stateOfHookEvent } from '../../../service/core/agents/hook-agent-state.js';
import {
  commandArgs,
  formatLiteral,
  literalArg,
  rowFormat,
  SEP,
} from '../../../service/terminal/tmux/tmux-argv.js';
import { PANE_FIELDS, type PaneRow, withStartDir } from '../../../service/terminal/tmux/tmux-records.js';

describe('tmux arguments', () => {
  it('escapes only a final semicolon, which tmux would take for a command separator', () => {
    expect(literalArg('a;')).toBe('a\\;');
    expect(literalArg(';')).toBe('\\;');
    expect(literalArg('a\\;')).toBe('a\\\\;');
    expect(literalArg('a;b')).toBe('a;b');
    expect(literalArg(SEP)).toBe(';');
  });

  it('doubles # where tmux expands formats', () => {
    expect(formatLiteral('#{pane_id} ##')).toBe('##{pane_id} ####');
  });

  it('runs a lone word through exec "$0", never as a shell line', () => {
    expect(commandArgs(['a b; c'])).toEqual(['--', 'sh', '-c', 'exec "$0"', 'a b; c']);
    expect(commandArgs(['x', 'y'])).toEqual(['--', 'x', 'y']);
  });

  it('splits rows only at its own random marks, whatever the values hold', () => {
    const format = rowFormat(['a', 'b'] as const);
    const fieldSep = format.format.slice('#{a}'.length, format.format.indexOf('#{b}'));
    const rowEnd = format.format.slice(format.format.indexOf('#{b}') + '#{b}'.length);
    const hostile = 'x\n\u001f\u001e|\t#{y}';
    const out = `${hostile}${fieldSep}2${rowEnd}\nplain${fieldSep}${rowEnd}\nwarning line\n`;
    expect(format.parse(out)).toEqual([
      { a: hostile, b: '2' },
      { a: 'plain', b: '' },
    ]);
    expect(rowFormat(['a'] as const).format).not.toBe(rowFormat(['a'] as const).format);
  });
});

describe('hook-reported agent state', () => {
  it('reads a prompt as working and a stop or a session start as idle', () => {
    expect(stateOfHookEvent('UserPromptSubmit')).toBe('working');
    expect(stateOfHookEvent('Stop')).toBe('idle');
    expect(stateOfHookEvent('SessionStart')).toBe('idle');
    expect(stateOfHookEvent('Other')).toBeUndefined();
    expect(stateOfHookEvent('Notification', { notification_type: 'permission_prompt' })).toBe('blocked');
    expect(stateOfHookEvent('Notification', { notification_type: 'elicitation_dialog' })).toBe('blocked');
    expect(stateOfHookEvent('Notification', { notification_type: 'idle_prompt' })).toBe('idle');
    expect(stateOfHookEvent('Notification', { notification_type: 'auth_success' })).toBeUndefined();
    expect(stateOfHookEvent('Notification', { notification_type: 42, message: 'x' })).toBeUndefined();
    // Older Claude Code sends the message alone.
    expect(stateOfHookEvent('Notification', { message: 'Claude needs your permission to use Bash' })).toBe(
      'blocked',
    );
    expect(stateOfHookEvent('Notification', { message: 'Claude is waiting for your input' })).toBe('idle');
    expect(stateOfHookEvent('Notification')).toBeUndefined();
  });

  it('reads an idle agent whose transcript changed after the report as working', () => {
    expect(hookedAgentState({ state: 'idle', at_ms: 1_000 }, 10_000)).toBe('working');
    expect(hookedAgentState({ state: 'idle', at_ms: 1_000 }, 2_000)).toBe('idle');
    expect(hookedAgentState({ state: 'idle', at_ms: 1_000 }, null)).toBe('idle');
    expect(hookedAgentState({ state: 'working', at_ms: 1_000 }, 0)).toBe('working');
    // An answered prompt: the transcript moves after the blocked report.
    expect(hookedAgentState({ state: 'blocked', at_ms: 1_000 }, 10_000)).toBe('working');
    expect(hookedAgentState({ state: 'blocked', at_ms: 1_000 }, 2_000)).toBe('blocked');
  });
});

describe('a pane tmux has just made', () => {
  const fresh = (path: string): PaneRow =>
    Object.fromEntries(PANE_FIELDS.map((f) => [f, f === 'pane_current_path' ? path : 'x'])) as PaneRow;

  it('is in the directory it was started in while tmux reports no current path yet', () => {
    expect(withStartDir(fresh(''), '/w/feat-x').pane_current_path).toBe('/w/feat-x');
  });

  it('keeps the path tmux reports, and stays without one when none was asked for', () => {
    expect(withStartDir(fresh('/elsewhere'), '/w/feat-x').pane_current_path).toBe('/elsewhere');
    expect(withStartDir(fresh(''), undefined).pane_current_path).toBe('');
  });
});
