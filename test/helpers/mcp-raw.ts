// `dogsled mcp` from the built bundle driven line by line, without an MCP client: for what a client
// library would never send (lines that are not JSON, oversize lines, bytes that are not UTF-8). The
// answers are parsed as they come; a test waits for the answer with a given id, or for the count.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { CLI, exited } from './cli.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are plain JSON, checked by the assertions
export type Answer = any;

export interface RawMcp {
  child: ChildProcessWithoutNullStreams;
  /** Writes text or bytes as they are (add the newline yourself); resolves once written. */
  write(data: string | Buffer): Promise<void>;
  /** Writes one message as a line. */
  send(message: unknown): Promise<void>;
  /** The answer whose id is `id` (null: the next id-null answer not yet taken). */
  answer(id: string | number | null, timeoutMs?: number): Promise<Answer>;
  /** Every answer so far, in order. */
  answers(): Answer[];
  /** Waits until at least `count` answers came. */
  count(count: number, timeoutMs?: number): Promise<Answer[]>;
  stderr(): string;
  /** Waits until stderr holds `text` (a DOGSLED_TIMING mark, a warning). */
  stderrSeen(text: string, timeoutMs?: number): Promise<void>;
  /** Closes stdin and waits for the exit. */
  end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** `cli` is the built entry to run (another copy of dist/ in a test that moves it). */
export async function startRawMcp(env: NodeJS.ProcessEnv, cwd?: string, cli = CLI): Promise<RawMcp> {
  const child = spawn(process.execPath, [cli, 'mcp'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  const got: Answer[] = [];
  const takenNull = new Set<number>();
  let pending = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      got.push(JSON.parse(pending.slice(0, newline)));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    wake();
  });
  child.on('exit', wake);
  // A server that exits early makes our writes fail: the waits below report it instead.
  child.stdin.on('error', () => {});

  // Not a poll: each answer or exit wakes the waiters, which look again at what has arrived.
  const whenSeen = <T>(what: string, find: () => T | undefined, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          done();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(
            new Error(
              `the server exited (${child.exitCode ?? child.signalCode}) before ${what}; stderr: ${stderr}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(`no ${what} within ${timeoutMs} ms; answers: ${JSON.stringify(got).slice(0, 2000)}`),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const write = (data: string | Buffer) =>
    new Promise<void>((resolve, reject) =>
      child.stdin.write(data, (error) => (error ? reject(error) : resolve())),
    );
  const raw: RawMcp = {
    child,
    write,
    send: (message) => write(`${JSON.stringify(message)}\n`),
    answer: (id, timeoutMs = 30_000) =>
      whenSeen(
        `an answer with id ${JSON.stringify(id)}`,
        () => {
          if (id !== null) return got.find((answer) => answer.id === id);
          const index = got.findIndex((answer, i) => answer.id === null && !takenNull.has(i));
          if (index === -1) return undefined;
          takenNull.add(index);
          return got[index];
        },
        timeoutMs,
      ),
    answers: () => got,
    count: (count, timeoutMs = 30_000) =>
      whenSeen(`${count} answers`, () => (got.length >= count ? got : undefined), timeoutMs),
    stderr: () => stderr,
    stderrSeen: (text, timeoutMs = 30_000) =>
      whenSeen(
        `${JSON.stringify(text)} on stderr`,
        () => (stderr.includes(text) ? true : undefined),
        timeoutMs,
      ).then(() => undefined),
    end: async () => {
      child.stdin.end();
      return exited(child);
    },
  };
  await raw.send(INITIALIZE);
  await raw.answer('init');
  await raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return raw;
}
