// A real nats-server (Debian's 2.9, /usr/sbin/nats-server) for the fleet bus tests: loopback only,
// a free port, JetStream in a temporary directory, and an optional config file for what flags do
// not reach (authorization, max_payload). Stopped and started again on the same port and store, so
// a restart keeps the buckets as a real server would.
//
// The port is only free when picked: until the server binds it, and while a test has it stopped,
// another process (another test file's server, in another worker) may take it. So a start counts
// only once this server's own process says it is ready: a listener on the port may be someone
// else's (the old probe, a connection that succeeds, took one for this server while its own process
// had died of "address already in use", and the tests then talked to the other file's server until
// that file stopped it). How each process ended, and the tail of what it logged, is kept for the
// tests' failure messages.

import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './tree.js';

export const NATS_SERVER = '/usr/sbin/nats-server';

/** What nats-server logs once its client listener is up (2.9: after "Listening for client connections"). */
const READY = 'Server is ready';
/** Its fatal line when the port is taken. */
const PORT_TAKEN = 'address already in use';
/** How much of its log is kept: enough for the lines before a fatal one. */
const LOG_TAIL = 16 * 1024;
/** Tries of a fresh port when another process took the picked one before the server bound it. */
const PORT_TRIES = 5;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** How one server process ended. */
export interface NatsExit {
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When, as an ISO time. */
  at: string;
  /** Whether `stop()` asked for it (a test's planned outage or the file's end). */
  stopped: boolean;
  /** The last lines it logged (its stderr). */
  log: string;
}

interface Run {
  child: ChildProcess;
  log: string;
  ready: boolean;
  stopping: boolean;
  done: boolean;
  /** Resolves once its end is noted in `exits` (its log read to the last line). */
  closed: Promise<void>;
}

export class NatsServer {
  private run: Run | undefined;
  /** Every process of this server that ended, oldest first. */
  readonly exits: NatsExit[] = [];

  private constructor(
    private currentPort: number,
    private readonly dir: string,
    private readonly extra: string,
  ) {}

  get port(): number {
    return this.currentPort;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Whether this server's own process is up (not merely something listening on its port). */
  get running(): boolean {
    // Until its end is noted (its pipes closed, a moment after it exits), so a report has it.
    return this.run !== undefined && !this.run.done;
  }

  /** The last process's end, if the server is not running. */
  get ended(): NatsExit | undefined {
    return this.running ? undefined : this.exits.at(-1);
  }

  /** `extra` is config text appended to the server's file (an `authorization` block, say). */
  static async start(extra = ''): Promise<NatsServer> {
    const dir = await tempDir('dogsled-nats-');
    const server = new NatsServer(await freePort(), dir, extra);
    for (let attempt = 1; ; attempt++) {
      await server.writeConfig();
      try {
        await server.resume();
        return server;
      } catch (error) {
        // Another process took the port between the pick and the bind: pick another.
        if (attempt >= PORT_TRIES || !server.ended?.log.includes(PORT_TAKEN)) throw error;
        server.currentPort = await freePort();
      }
    }
  }

  private writeConfig(): Promise<void> {
    return writeFile(
      this.configFile,
      `host: 127.0.0.1\nport: ${this.port}\njetstream { store_dir: "${join(this.dir, 'js')}" }\n${this.extra}\n`,
    );
  }

  private get configFile(): string {
    return join(this.dir, 'server.conf');
  }

  /** Starts the server again (same port, same store); resolves once its process says it is ready. */
  async resume(): Promise<void> {
    const child = spawn(NATS_SERVER, ['-c', this.configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    const run: Run = {
      child,
      log: '',
      ready: false,
      stopping: false,
      done: false,
      closed: new Promise<void>((resolve) => {
        child.once('close', (code, signal) => {
          this.exits.push({
            pid: child.pid,
            code,
            signal,
            at: new Date().toISOString(),
            stopped: run.stopping,
            log: run.log,
          });
          run.done = true;
          resolve();
        });
      }),
    };
    this.run = run;
    child.stderr?.setEncoding('utf8').on('data', (data: string) => {
      run.log = (run.log + data).slice(-LOG_TAIL);
      if (!run.ready && run.log.includes(READY)) run.ready = true;
    });
    const deadline = Date.now() + 10_000;
    while (!run.ready) {
      if (run.done) throw new Error(`nats-server on port ${this.port} did not start: ${this.exitReport()}`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `nats-server on port ${this.port} did not say it was ready in 10 s:\n${lastLines(run.log)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async stop(): Promise<void> {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    run.stopping = true;
    run.child.kill('SIGTERM');
    await run.closed;
  }

  /**
   * How the last process ended: exit code or signal, whether a stop asked for it, when, and its
   * last log lines; or that it is running.
   */
  exitReport(): string {
    if (this.running) return `nats-server on port ${this.port} is running (pid ${this.run?.child.pid})`;
    const exit = this.exits.at(-1);
    if (!exit) return `nats-server on port ${this.port} was never started`;
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    const why = exit.stopped ? 'stopped by the test' : 'not stopped by the test';
    return `nats-server (pid ${exit.pid}, port ${this.port}) exited with ${how} at ${exit.at}, ${why}; its last lines:\n${lastLines(exit.log)}`;
  }

  /** For a failure message: the exit report when the server is not running, else nothing. */
  note(): string {
    return this.running ? '' : `; ${this.exitReport()}`;
  }

  /** A wait's description (test/helpers/wait.ts) that adds the exit report if the server is down when the wait gives up. */
  waiting(what: string): () => string {
    return () => `${what}${this.note()}`;
  }

  /** `error` (a refused connection, a timeout) with the exit report added if the server is not running. */
  explain(error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    if (this.running) return error instanceof Error ? error : new Error(message);
    return new Error(`${message}${this.note()}`, { cause: error });
  }
}

/**
 * The end of a server's log for a report: from a Go panic's first line (its message and the top of
 * its stack, which the last lines alone would cut off), else the last lines.
 */
function lastLines(log: string, count = 12): string {
  const all = log.trimEnd().split('\n');
  const panic = all.findIndex((line) => /^(panic|fatal error): /.test(line));
  const lines = panic >= 0 ? all.slice(panic, panic + 30) : all.slice(-count);
  return lines.length === 1 && lines[0] === '' ? '  (nothing logged)' : lines.map((l) => `  ${l}`).join('\n');
}
