// The fake Herdr on a test peer: the server runs as the peer's user at Herdr's default socket
// (~/.config/herdr/herdr.sock), so a dogsled started there over SSH finds it the way it finds a real
// one, with no variable set; its panes find the fake agents and node first on PATH.

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { callSocket, type Envelope } from '../../fakes/herdr/harness.js';
import { waitFor } from '../../helpers/wait.js';
import type { Peer } from './index.js';
import { stopTree } from './procs.js';

export interface PeerHerdr {
  socketPath: string;
  /** The PATH its panes get: a caller started in one of them has it. */
  path: string;
  /** Where the peer's fake agents record their launches. */
  logDir: string;
  call: (method: string, params?: Record<string, unknown>) => Promise<Envelope>;
  stop: () => Promise<void>;
}

/** `binFirst`: a directory of the peer's put first on its panes' PATH (a `dogsled` for the children). */
export async function startPeerHerdr(peer: Peer, options: { binFirst?: string } = {}): Promise<PeerHerdr> {
  const home = peer.user.home;
  const socketPath = join(home, '.config', 'herdr', 'herdr.sock');
  const logDir = join(home, 'agent-log');
  await peer.run(['mkdir', '-p', join(home, '.config', 'herdr'), logDir]);
  const first = options.binFirst === undefined ? '' : `${options.binFirst}:`;
  // The peer's copy of the fakes: its user may not read the checkout's.
  const agents = join(peer.fakes, 'agents', 'bin');
  const server = join(peer.fakes, 'herdr', 'server.mjs');
  const path = `${first}${agents}:${join(process.execPath, '..')}:/usr/local/bin:/usr/bin:/bin`;
  const child: ChildProcess = peer.spawn(
    [process.execPath, server, '--socket', socketPath, '--settle-ms', '50', '--prompt-delay-ms', '20'],
    { PATH: path, FAKE_AGENT_LOG_DIR: logDir, DOGSLED_TEST: '1' },
  );
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  const started = await waitFor(
    `the fake Herdr on ${peer.alias} to answer ping`,
    async () => {
      if (child.exitCode !== null) return 'exited';
      const pong = await callSocket(socketPath, 'ping').catch(() => undefined);
      return pong?.result?.type === 'pong' ? 'ready' : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  ).catch(() => 'silent');
  if (started !== 'ready') throw new Error(`the fake Herdr on ${peer.alias} did not start:\n${log}`);
  return {
    socketPath,
    path,
    logDir,
    call: (method, params = {}) => callSocket(socketPath, method, params),
    stop: async () => {
      if (child.pid !== undefined && child.exitCode === null) await stopTree(child.pid);
    },
  };
}
