// One pane's process: a real program (a shell unless told otherwise) on a real pseudo-terminal,
// hosted by pty-host.py (no native addon). The program leads its own session, so closing the pane
// kills the whole session, background jobs included. Output lands in a Screen for `pane.read`.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { killSession } from './procfs.mjs';
import { Screen } from './screen.mjs';

const HOST = join(import.meta.dirname, 'pty-host.py');
// A pyenv shim on PATH costs ~0.7 s per start; the system interpreter starts in tens of ms.
const PYTHON =
  process.env.FAKE_HERDR_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

export class PaneProcess extends EventEmitter {
  /** Shell pid (session and process-group leader); undefined until the host reports it. */
  pid = undefined;
  exited = false;
  exitCode = undefined;

  /**
   * @param {{ argv: string[], cwd: string, env: NodeJS.ProcessEnv, rows: number, cols: number }} options
   * Emits 'output' on each chunk and 'exit' once, when the program has ended.
   */
  constructor({ argv, cwd, env, rows, cols }) {
    super();
    this.argv = argv;
    this.screen = new Screen(rows);
    this.child = spawn(PYTHON, ['-I', '-S', HOST, String(rows), String(cols), '--', ...argv], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'inherit', 'pipe'],
    });
    this.started = new Promise((resolve) => {
      this.#resolveStarted = resolve;
    });
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    this.child.stdin.on('error', () => {});
    this.child.stdout.on('data', (chunk) => {
      this.screen.write(chunk);
      this.emit('output');
    });
    let status = '';
    this.child.stdio[3].setEncoding('utf8').on('data', (text) => {
      status += text;
      let newline = status.indexOf('\n');
      while (newline >= 0) {
        this.#onStatus(status.slice(0, newline));
        status = status.slice(newline + 1);
        newline = status.indexOf('\n');
      }
    });
    this.child.on('error', (error) => {
      process.stderr.write(`fake herdr: pty host failed: ${error.message}\n`);
      this.#finish(null);
    });
    this.child.on('close', () => this.#finish(this.exitCode ?? null));
  }

  #resolveStarted;
  #resolveEnded;

  #onStatus(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message.pid === 'number') {
      this.pid = message.pid;
      this.#resolveStarted(message.pid);
    } else if ('exit' in message) {
      this.exitCode = message.exit;
    }
  }

  #finish(code) {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.#resolveStarted(undefined);
    this.#resolveEnded();
    this.emit('exit', code);
  }

  write(text) {
    if (this.exited || !this.child.stdin.writable) return false;
    this.child.stdin.write(text);
    return true;
  }

  /** Kills the pane's session and its host; resolves once the host is gone. */
  kill() {
    if (this.pid !== undefined) killSession(this.pid);
    if (!this.exited) {
      this.child.stdin.end();
      this.child.kill('SIGTERM');
    }
    return this.ended;
  }

  /** Synchronous last resort on server exit (the caller killed the sessions in one scan). */
  killHost() {
    try {
      this.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
