// Starts the fake Herdr server (server.mjs) as a child process for a test or benchmark and hands
// back its socket, the directory of the `herdr` shim and an environment that points both at it.
// The server watches its stdin pipe, so it also dies with the test process; stop() kills it and
// every pane process group and is safe to call twice.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '../../helpers/wait.js';

const HERE = import.meta.dirname;
const SERVER = join(HERE, 'server.mjs');
const BIN_DIR = join(HERE, 'bin');
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/** A response envelope ({id, result} or {id, error}) as plain JSON; tests assert on its shape. */
// biome-ignore lint/suspicious/noExplicitAny: the whole response envelope, as plain JSON
export type Envelope = any;

export interface FakeHerdr {
  /** The API socket (mode 0600). */
  socketPath: string;
  /** Directory holding the `herdr` shim (prepend to PATH). */
  binDir: string;
  /** HERDR_SOCKET_PATH, HERDR_ENV=1, PATH=binDir:..., XDG_CONFIG_HOME and XDG_STATE_HOME inside dir. */
  env: NodeJS.ProcessEnv;
  /** One request per connection; resolves the whole response envelope. */
  call(method: string, params?: Record<string, unknown>): Promise<Envelope>;
  /** Kills every pane process group and the server; idempotent. */
  stop(): Promise<void>;
}

export interface FakeHerdrOptions {
  /** A temp dir for the socket and config/state. */
  dir: string;
  /** Agent readiness settle delay (§4.4); default 50 ms here (Herdr: 3000). */
  settleMs?: number;
  /** Server version, e.g. '0.8.0' to hide the machine verbs; default 0.9.5. */
  version?: string;
  /** Extra env for the server AND every pane process (HOME, PATH with fake agents, DOGSLED_STATE...). */
  env?: NodeJS.ProcessEnv;
  /** Delay between the text and the Enter of agent.prompt (Herdr: 300 ms); default 20. */
  promptDelayMs?: number;
  /** How often pane foreground jobs are re-read for agent detection; default 100 ms. */
  detectMs?: number;
}

/** Sends one request on a fresh connection and resolves the parsed response line. */
export function callSocket(
  socketPath: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Envelope> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ id: `test:${method}`, method, params })}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(JSON.parse(buffer.split('\n')[0] ?? ''));
      } catch {
        reject(new Error(`fake herdr sent no JSON response to ${method}: ${JSON.stringify(buffer)}`));
      }
    });
  });
}

/** The caller's environment without any Herdr/XDG settings of a developer's own session. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(HERDR_|XDG_|FAKE_HERDR_)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startFakeHerdr(options: FakeHerdrOptions): Promise<FakeHerdr> {
  const socketPath = join(options.dir, 'h.sock');
  const configHome = join(options.dir, 'config');
  const stateHome = join(options.dir, 'state');
  const home = join(options.dir, 'home');
  await Promise.all([configHome, stateHome, home].map((path) => mkdir(path, { recursive: true })));
  const base = { ...cleanEnv(), ...options.env };
  const version = options.version ?? '0.9.5';
  const env: NodeJS.ProcessEnv = {
    ...base,
    HERDR_SOCKET_PATH: socketPath,
    HERDR_ENV: '1',
    PATH: `${BIN_DIR}:${base.PATH ?? ''}`,
    XDG_CONFIG_HOME: configHome,
    XDG_STATE_HOME: stateHome,
    FAKE_HERDR_VERSION: version,
  };
  // The server gets a private HOME unless the test chose one (worktree.create writes under ~/.herdr).
  const serverEnv: NodeJS.ProcessEnv = { ...env, HOME: options.env?.HOME ?? home };
  delete serverEnv.HERDR_SOCKET_PATH;
  delete serverEnv.HERDR_ENV;
  const args = [
    SERVER,
    '--socket',
    socketPath,
    '--version',
    version,
    '--settle-ms',
    String(options.settleMs ?? 50),
    '--prompt-delay-ms',
    String(options.promptDelayMs ?? 20),
    '--detect-ms',
    String(options.detectMs ?? 100),
  ];
  const child = spawn(process.execPath, args, { env: serverEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const started = await waitFor(
    'the fake herdr to answer ping',
    async () => {
      if (child.exitCode !== null) return 'exited';
      const pong = await callSocket(socketPath, 'ping').catch(() => undefined);
      return pong?.result?.type === 'pong' ? 'ready' : undefined;
    },
    { timeoutMs: START_TIMEOUT_MS, intervalMs: 20 },
  ).catch(() => 'silent');
  if (started === 'exited') throw new Error(`fake herdr exited during start-up:\n${log}`);
  if (started === 'silent') {
    child.kill('SIGKILL');
    throw new Error(`fake herdr did not answer ping within ${START_TIMEOUT_MS} ms:\n${log}`);
  }

  let stopping: Promise<void> | undefined;
  return {
    socketPath,
    binDir: BIN_DIR,
    env,
    call: (method, params = {}) => callSocket(socketPath, method, params),
    stop() {
      stopping ??= (async () => {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited(child);
        clearTimeout(timer);
        child.stdin?.destroy();
      })();
      return stopping;
    },
  };
}
