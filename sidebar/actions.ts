// What the sidebar does for the person, outside the screen, each through its action in
// service/actions: switch the terminal to a child's pane (⏎, jump.ts: Herdr focuses it; tmux switches
// the clients showing the board to the child's session and window); send a child a message, close
// it, stop a job and cancel a ticket (dogsled-call.ts: through the dogsled CLI itself, so each keeps
// its own checks, locks and wording); dismiss an ATTENTION row (board.ts, the action `board
// --dismiss` calls); and read a child's or job's newest output (read.ts, the action of `dogsled
// read`). Each returns text for the screen, escape-free; nothing here ever types into a terminal.

import { dismissBoardRow } from '../service/actions/board.js';
import { runDogsled } from '../service/actions/dogsled-call.js';
import { type PaneJump, paneJump } from '../service/actions/jump.js';
import type { HostIO } from '../service/actions/verb-io.js';
import type { BoardRow } from '../service/core/board/board-rule.js';
import { messageOf } from '../service/core/common/errors.js';
import { displayText } from './model/cells.js';

/** Actions that name a job or ticket run `dogsled <verb> <id>`, bounded like a routine call. */
const ACTION_TIMEOUT_MS = 30_000;

/** This host's IO (Herdr's environment and home, the state the reads come from) and the CLI to run. */
export interface ActionIO extends HostIO {
  /** The dogsled entry this process runs (process.argv[1]), for send, close, stop and cancel. */
  entry: string;
}

export class Actions {
  private readonly focus: PaneJump;

  constructor(private readonly io: ActionIO) {
    this.focus = paneJump(io, 'sidebar');
  }

  /** ⏎ on a card: the terminal switched to the row's pane. */
  async jump(row: BoardRow): Promise<string> {
    if (row.pane === null) {
      return row.group === 'to_land'
        ? `${displayText(row.title)} has no pane: its branch waits to land`
        : `${row.kind} ${displayText(row.id)} has no pane to switch to`;
    }
    try {
      await this.focus(row.pane);
      return `switched to ${displayText(row.title)} (${displayText(row.pane)})`;
    } catch (error) {
      return displayText(messageOf(error));
    }
  }

  /** `d` on an ATTENTION row: marked seen for `owner`, so it moves to DONE. */
  async dismiss(owner: string, row: BoardRow): Promise<string> {
    try {
      const done = await dismissBoardRow(this.io, owner, row.id);
      const what = `${done.kind} ${displayText(done.id)} (${displayText(done.state)})`;
      return done.already ? `${what} was seen already` : `${what} seen: moved to DONE`;
    } catch (error) {
      return displayText(messageOf(error));
    }
  }

  /**
   * `dogsled stop JOB`, `cancel TICKET`, `close PANE` or `send PANE` (the message on stdin, never in
   * argv): the first line of what it said, or its error.
   */
  async run(verb: 'stop' | 'cancel' | 'close' | 'send', id: string, message?: string): Promise<string> {
    const args =
      verb === 'send' ? [this.io.entry, verb, id, '--message-file', '-'] : [this.io.entry, verb, id];
    try {
      const result = await runDogsled(process.execPath, args, {
        env: this.io.env,
        timeoutMs: ACTION_TIMEOUT_MS,
        ...(message === undefined ? {} : { input: message }),
      });
      const text = `${result.stdout.toString('utf8')}\n${result.stderr.toString('utf8')}`.trim();
      const first = text.split('\n')[0] ?? '';
      return displayText(first || (result.exitCode === 0 ? `${verb} ${id}: done` : `${verb} ${id} failed`));
    } catch (error) {
      return displayText(messageOf(error));
    }
  }

  /** `dogsled read TARGET`: the newest output and, for a child, its final reply, as screen lines. */
  async read(target: string, lines: number): Promise<string[]> {
    try {
      const { readTarget } = await import('../service/actions/read.js');
      const report = await readTarget(this.io, target, null);
      const output =
        report.output === null ? ['(no output to read: the pane is gone)'] : report.output.split('\n');
      const shown = output.slice(-lines);
      if (report.kind === 'agent') {
        shown.push(
          '',
          ...(report.reply === null
            ? ['final reply: none yet']
            : ['final reply:', ...report.reply.split('\n')]),
        );
      }
      return shown.map(displayText);
    } catch (error) {
      return [displayText(messageOf(error))];
    }
  }
}
