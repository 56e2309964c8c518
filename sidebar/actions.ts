// What the sidebar does for the person, outside the screen: focus a child's pane in Herdr (⏎), stop
// a job and cancel a ticket (through the dogsled CLI itself, so each keeps its own checks, locks and
// wording), and read a job's newest output. Each returns one line for the message row; nothing here
// ever types into a terminal.

import { stripEscapes } from '../service/core/strip-escapes.js';
import { messageOf } from '../service/errors.js';
import { runProcess } from '../service/process/run.js';
import type { ProcessIO } from '../service/state/io.js';
import { jobLogPath } from '../service/state/job-records.js';
import { openRegular } from '../service/state/regular-file.js';
import type { TerminalPort } from '../service/terminal/port.js';
import { displayText } from './model/cells.js';

/** Actions that name a job or ticket run `dogsled <verb> <id>`, bounded like a routine call. */
const ACTION_TIMEOUT_MS = 30_000;
const LOG_TAIL_BYTES = 16 * 1024;

/** Herdr's environment and home, the state paths (job logs), and the CLI to run. */
export interface ActionIO extends Pick<ProcessIO, 'env' | 'home' | 'paths'> {
  /** The dogsled entry this process runs (process.argv[1]), for stop and cancel. */
  entry: string;
}

export class Actions {
  private port: Promise<TerminalPort> | undefined;

  constructor(private readonly io: ActionIO) {}

  private terminal(): Promise<TerminalPort> {
    this.port ??= import('../service/terminal/open.js').then(({ openTerminal }) =>
      openTerminal({ env: this.io.env, home: this.io.home, commandName: 'sidebar', warn: () => {} }),
    );
    return this.port;
  }

  /** ⏎ on a card: the child's pane, focused in Herdr. */
  async focus(pane: string | null): Promise<string> {
    if (pane === null) return 'no pane to focus';
    try {
      await (await this.terminal()).focusPane(pane);
      return `focused ${displayText(pane)}`;
    } catch (error) {
      return displayText(messageOf(error));
    }
  }

  /** `dogsled stop JOB` or `dogsled cancel TICKET`: its first output line, or its error. */
  async run(verb: 'stop' | 'cancel', id: string): Promise<string> {
    try {
      const result = await runProcess(process.execPath, [this.io.entry, verb, id], {
        env: this.io.env,
        timeoutMs: ACTION_TIMEOUT_MS,
      });
      const text = `${result.stdout.toString('utf8')}\n${result.stderr.toString('utf8')}`.trim();
      const first = text.split('\n')[0] ?? '';
      return displayText(first || (result.exitCode === 0 ? `${verb} ${id}: done` : `${verb} ${id} failed`));
    } catch (error) {
      return displayText(messageOf(error));
    }
  }

  /** The last lines of a job's output, escape-free, for the read popup. */
  async readJob(id: string, lines: number): Promise<string[]> {
    try {
      const handle = await openRegular(jobLogPath(this.io.paths, id));
      if (handle === undefined) return ['(no output yet)'];
      try {
        const { size } = await handle.stat();
        const length = Math.min(size, LOG_TAIL_BYTES);
        const buffer = Buffer.alloc(length);
        await handle.read(buffer, 0, length, size - length);
        const text = stripEscapes(buffer.toString('utf8')).split('\n');
        if (size > length) text.shift();
        while (text.length > 0 && text.at(-1) === '') text.pop();
        return text.slice(-lines).map(displayText);
      } finally {
        await handle.close().catch(() => undefined);
      }
    } catch (error) {
      return [displayText(messageOf(error))];
    }
  }
}
