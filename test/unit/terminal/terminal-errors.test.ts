// The terminal layer's error vocabulary: Herdr codes keep their names, unknown codes are kept raw,
// and only the refusals Herdr makes before typing anything count as final.

import { describe, expect, it } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import {
  fromHerdrCode,
  isFinalRefusal,
  needsHerdr,
  needsPane,
  needsTerminal,
  TerminalError,
} from '../../../service/terminal/terminal-errors.js';

describe('TerminalError', () => {
  it('is a DogsledError with exit code 2, so the CLI prints one line', () => {
    const error = fromHerdrCode('agent_pane_busy', 'herdr agent.start: pane w1:p2 is busy', 'agent.start');
    expect(error).toBeInstanceOf(DogsledError);
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('agent_pane_busy');
    expect(error.method).toBe('agent.start');
  });

  it('keeps an unknown Herdr code as `other` with the raw code', () => {
    const error = fromHerdrCode('worktree_operation_in_progress', 'busy', 'worktree.open');
    expect(error.code).toBe('other');
    expect(error.herdrCode).toBe('worktree_operation_in_progress');
  });

  it('reads the CLI server_not_running as unreachable', () => {
    expect(fromHerdrCode('server_not_running', 'no server', 'pane.list').code).toBe('unreachable');
  });

  it('words the headless refusal exactly as `<command> needs Herdr or tmux (<why>)`', () => {
    const error = needsTerminal('agent', 'HERDR_SOCKET_PATH is not set and no herdr binary is on PATH');
    expect(error.message).toBe(
      'agent needs Herdr or tmux (HERDR_SOCKET_PATH is not set and no herdr binary is on PATH)',
    );
    expect(error.code).toBe('needs_herdr');
    expect(error.exitCode).toBe(2);
    expect(needsHerdr('plugin pane open', 'tmux has no plugins').message).toBe(
      'plugin pane open needs Herdr (tmux has no plugins)',
    );
  });

  it('names both panes when a command runs in neither', () => {
    expect(needsPane('board --open').message).toBe(
      'board --open needs a Herdr or tmux pane (neither HERDR_PANE_ID nor TMUX_PANE is set)',
    );
    expect(needsPane('done', 'a child runs it in its own pane').message).toBe(
      'done needs a Herdr or tmux pane (neither HERDR_PANE_ID nor TMUX_PANE is set): a child runs it in its own pane',
    );
  });
});

describe('isFinalRefusal', () => {
  it('is true for every refusal Herdr makes before typing into the pane', () => {
    for (const code of [
      'invalid_agent_name',
      'unsupported_agent_kind',
      'invalid_agent_argument',
      'agent_name_taken',
      'agent_pane_not_found',
      'agent_pane_busy',
      'agent_pane_unavailable',
      'invalid_agent_timeout',
      'agent_start_input_failed',
    ]) {
      expect(isFinalRefusal(fromHerdrCode(code, code, 'agent.start'))).toBe(true);
    }
  });

  it('is false once something may have been typed, or when the outcome is unknown', () => {
    for (const code of [
      'timeout',
      'agent_start_failed',
      'agent_kind_mismatch',
      'protocol',
      'unreachable',
    ] as const) {
      expect(isFinalRefusal(new TerminalError(code, code, { method: 'agent.start' }))).toBe(false);
    }
    expect(isFinalRefusal(new Error('agent_pane_busy'))).toBe(false);
  });

  it('counts a CLI usage error of agent start as final (the CLI rejects before contacting Herdr)', () => {
    expect(isFinalRefusal(new TerminalError('usage', 'unsupported kind', { method: 'agent.start' }))).toBe(
      true,
    );
    expect(isFinalRefusal(new TerminalError('usage', 'bad flag', { method: 'pane.split' }))).toBe(false);
  });
});
