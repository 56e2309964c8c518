// A private tmux server for the terminal port's tests: its own TMUX_TMPDIR and socket name, no
// config, one session sized 200x50 whose panes get exactly the environment the test gives. The
// environment returned makes openTerminal pick it the way a process inside that tmux would
// (TMUX = socket,pid,index); kill() ends the server and every pane in it.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TmuxServer {
  socket: string;
  pid: number;
  /** An environment "inside" this server: TMUX names it, no Herdr variable is set. */
  env: NodeJS.ProcessEnv;
  /** `tmux -S socket ARGS…`, for assertions made with tmux itself. */
  tmux(...args: string[]): Promise<string>;
  kill(): Promise<void>;
}

export async function startTmuxServer(options: {
  dir: string;
  name: string;
  /** The panes' environment (PATH, HOME…), also the base of `env`. */
  env: Record<string, string>;
  width?: number;
  height?: number;
}): Promise<TmuxServer> {
  const base = { ...options.env, TMUX_TMPDIR: options.dir, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
  const socket = join(options.dir, options.name);
  // Panes start in the test's directory, never in the repository the tests run from: a service or
  // a sweep that sees a pane there would take that repository as one of its own.
  const tmux = async (...args: string[]) =>
    (await run('tmux', ['-S', socket, ...args], { env: base, cwd: options.dir })).stdout;
  await run(
    'tmux',
    [
      '-S',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-c',
      options.dir,
      '-s',
      'base',
      '-x',
      String(options.width ?? 200),
      '-y',
      String(options.height ?? 50),
    ],
    { env: base, cwd: options.dir },
  );
  const pid = Number((await tmux('display-message', '-p', '#{pid}')).trim());
  return {
    socket,
    pid,
    env: { ...base, TMUX: `${socket},${pid},0` },
    tmux,
    kill: async () => {
      await tmux('kill-server').catch(() => undefined);
    },
  };
}
