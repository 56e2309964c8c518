// A private tmux server for tests of full-screen programs: its own socket name and TMUX_TMPDIR in
// a temp dir, no config (-f /dev/null), kept alive between tests (exit-empty off) so a test file
// starts one server and each screen is a session of a fixed size running one command. The screen is
// read back with capture-pane (-e for colours); keys and mouse go in with send-keys.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { shellLine } from '../../service/core/common/shell-quote.js';
import { type WaitOptions, waitFor } from './wait.js';

const run = promisify(execFile);

export interface Tmux {
  /** The screen as text, one string per row (trailing spaces kept out). */
  capture(): Promise<string[]>;
  /** The screen with SGR escapes (colours, bold, inverse). */
  captureAnsi(): Promise<string>;
  /** tmux key names: `Tab`, `Enter`, `Space`, `Down`, `j`, `Escape`... */
  keys(...keys: string[]): Promise<void>;
  /** Bytes typed as they are (mouse reports, escape sequences). */
  literal(text: string): Promise<void>;
  /** Waits until the screen's rows pass `check`; a timeout shows the last screen. */
  waitFor(what: string, check: (rows: string[]) => boolean, options?: WaitOptions): Promise<string[]>;
  resize(width: number, height: number): Promise<void>;
  /** Whether the program has exited (the pane stays, remain-on-exit). */
  exited(): Promise<boolean>;
  /** A tmux format of the pane (`#{alternate_on}`, `#{mouse_sgr_flag}`...), as display-message prints it. */
  format(format: string): Promise<string>;
  /** Ends this screen's session (and its program); the server stays. */
  kill(): Promise<void>;
}

export interface ScreenOptions {
  /** The program's working directory: the test's own, never the repository's. */
  dir: string;
  width: number;
  height: number;
  argv: string[];
  env: NodeJS.ProcessEnv;
}

export interface TmuxServer {
  open(options: ScreenOptions): Promise<Tmux>;
  /** Ends the server and every screen in it. */
  kill(): Promise<void>;
}

/** A server whose socket lives in `dir` (TMUX_TMPDIR) under `name`. */
export async function startTmux(dir: string, name: string): Promise<TmuxServer> {
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TMUX_TMPDIR: dir,
    LC_ALL: 'C.UTF-8',
    LANG: 'C.UTF-8',
  };
  delete serverEnv.TMUX;
  // In the temp dir, never in the repository the tests run from.
  const tmux = (...args: string[]) => run('tmux', ['-L', name, ...args], { env: serverEnv, cwd: dir });
  await tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'keep',
    ';',
    'set-option',
    '-g',
    'exit-empty',
    'off',
  );
  let serial = 0;
  return {
    open: async (options) => {
      serial += 1;
      const session = `s${serial}`;
      const target = `${session}:`;
      const assignments = Object.entries(options.env)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${value}`);
      // `env -i`: the program sees exactly the test's environment, not the tmux server's.
      const command = `exec ${shellLine(['env', '-i', ...assignments, ...options.argv])}`;
      await tmux(
        'new-session',
        '-d',
        '-c',
        options.dir,
        '-s',
        session,
        '-x',
        String(options.width),
        '-y',
        String(options.height),
        command,
      );
      await tmux('set-option', '-t', target, 'remain-on-exit', 'on');
      return screen(tmux, target, session);
    },
    kill: async () => {
      await tmux('kill-server').catch(() => undefined);
    },
  };
}

type Run = (...args: string[]) => Promise<{ stdout: string }>;

function screen(tmux: Run, target: string, session: string): Tmux {
  const capture = async () => {
    const { stdout } = await tmux('capture-pane', '-p', '-t', target);
    return stdout.replace(/\n$/, '').split('\n');
  };
  return {
    capture,
    captureAnsi: async () => (await tmux('capture-pane', '-p', '-e', '-t', target)).stdout,
    keys: async (...keys) => {
      await tmux('send-keys', '-t', target, ...keys);
    },
    literal: async (text) => {
      await tmux('send-keys', '-t', target, '-l', text);
    },
    waitFor: async (what, check, options = {}) => {
      // A screen counts once two captures in a row agree: tmux can be read while a frame is
      // still being written, and a half-drawn frame may already pass the check.
      let rows: string[] = [];
      let passed: string | undefined;
      const seen = async () => {
        rows = await capture();
        const now = rows.join('\n');
        const settled = passed === now;
        passed = check(rows) ? now : undefined;
        return settled && passed !== undefined ? rows : undefined;
      };
      return waitFor(`the screen to show ${what}`, seen, {
        timeoutMs: 15_000,
        intervalMs: 50,
        ...options,
      }).catch((error: Error) => {
        throw new Error(`${error.message}; the screen:\n${rows.join('\n')}`);
      });
    },
    resize: async (width, height) => {
      await tmux('resize-window', '-t', target, '-x', String(width), '-y', String(height));
    },
    exited: async () =>
      (await tmux('display-message', '-p', '-t', target, '#{pane_dead}')).stdout.trim() === '1',
    format: async (format) => (await tmux('display-message', '-p', '-t', target, format)).stdout.trim(),
    kill: async () => {
      await tmux('kill-session', '-t', session).catch(() => undefined);
    },
  };
}

/** A left-button click (press and release) at 0-based cell (x, y), as an SGR mouse report. */
export function click(x: number, y: number): string {
  return `\u001b[<0;${x + 1};${y + 1}M\u001b[<0;${x + 1};${y + 1}m`;
}

/** A wheel step at 0-based cell (x, y): up or down. */
export function wheel(x: number, y: number, direction: 'up' | 'down'): string {
  return `\u001b[<${direction === 'up' ? 64 : 65};${x + 1};${y + 1}M`;
}
