// Where the tmux server is and who is calling, from the variables tmux sets in its panes: TMUX
// (`<socket>,<server pid>,<session index>`) and TMUX_PANE (`%N`). A terminal id is the pane id with
// the server's pid, since tmux restarts its pane numbers with every server.

import type { TerminalPort } from '../port.js';

export interface TmuxServerEnv {
  /** The server's socket, or undefined for tmux's default server (TMUX_TMPDIR, uid, `default`). */
  socket: string | undefined;
  /** The server's pid from TMUX, when this process runs in one of its panes. */
  serverPid: number | undefined;
}

/** The server named by TMUX, or the default server when TMUX is unset or empty. */
export function tmuxServerEnv(env: NodeJS.ProcessEnv): TmuxServerEnv {
  const value = env.TMUX;
  if (!value) return { socket: undefined, serverPid: undefined };
  // The socket path may itself hold commas: the pid and the index are the last two fields.
  const parts = value.split(',');
  const pid = parts.length >= 3 ? Number(parts.at(-2)) : Number.NaN;
  const socket = parts.length >= 3 ? parts.slice(0, -2).join(',') : value;
  return {
    socket: socket === '' ? undefined : socket,
    serverPid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
  };
}

/** TMUX_PANE when this process runs in a tmux pane, else null. */
export function tmuxCallerPane(env: NodeJS.ProcessEnv): string | null {
  const pane = env.TMUX_PANE;
  return env.TMUX && pane && /^%\d+$/.test(pane) ? pane : null;
}

export function tmuxTerminalId(paneId: string, serverPid: number | string): string {
  return `${paneId}@${serverPid}`;
}

/** The terminal id of the tmux pane this process runs in, with no tmux call (for hooks). */
export function ownTmuxTerminal(env: NodeJS.ProcessEnv): string | null {
  const pane = tmuxCallerPane(env);
  const { serverPid } = tmuxServerEnv(env);
  return pane === null || serverPid === undefined ? null : tmuxTerminalId(pane, serverPid);
}

/** True for the tmux backend; the dock and agent start use verbs only it has. */
export function isTmux(port: TerminalPort): boolean {
  return port.kind === 'tmux';
}
