// The supervisor `serve` keeps warm (WARM_ENV, started by daemon/warm-keeper.ts): a job supervisor
// whose Node has already started, waiting on supervisor.sock in the state dir for one launch to hand
// it a job, so a waiting `run` pays for one Node start, not two. A claim is one connection saying
// `JOB_ID\n`. The first well-formed one takes it: the socket is unlinked and closed, serve hears
// `taken` on this process's stdout (and starts the next warm one), the record's start claim is made
// and the claimer is answered `ok PID`; from there it is that job's supervisor, exactly as a standby
// after `go`. A claimer that gave up (this process was frozen) has started the job elsewhere: the
// start claim refuses it and this process exits having run nothing. Its stdin is serve's pipe: when
// that closes while it is unclaimed, it leaves. Its socket is usually serve's making, handed over
// as descriptor 3 (WARM_SOCKET_ENV, daemon/warm-worker.ts): then serve, not this process, puts the
// next one's over the path, and this one says `taken` before anything else so that happens soon.

import { lstat, unlink } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { EXIT } from '../../core/common/exit-codes.js';
import { WARM_SOCKET_ENV, WARM_SOCKET_FD } from '../../core/jobs/job-env.js';
import {
  GO_LINE,
  isPaneClaim,
  PANE_CLAIM_MAX_BYTES,
  type PaneClaim,
  parsePaneClaim,
  supervisorLine,
  TERMINATE_LINE,
} from '../../core/jobs/warm-handoff-lines.js';
import { plainLine } from '../../core/text/clean.js';
import { listenPrivate } from '../../state/engine/private-socket.js';
import type { ProcessIO } from '../../state/io.js';
import type { PaneStream } from './exec-pane.js';
import { SUPERVISOR_ENV, superviseJob } from './exec-supervise.js';
import { warmUp } from './exec-warm-up.js';

/** A launch's claim is a job id (state/job-records.ts's rule, bounded) and a newline. */
const CLAIM = /^(j_[A-Za-z0-9_-]{1,60})\n$/;
/** A connection that has not said a whole claim in this long is dropped; the socket stays open. */
const CLAIM_READ_MS = 5_000;
const CLAIM_MAX_BYTES = 64;
/** How long a pane's wrapper has to say `go` after `ready` (it says it at once, or never). */
const GO_WAIT_MS = 5_000;

interface Claim {
  id: string;
  /** A pane's wrapper's claim (exec-handoff.ts), undefined for a launch's. */
  pane: PaneClaim | undefined;
  /** What came after the claim's newline (a pane's `term` may follow it at once). */
  rest: string;
}

interface Claimed extends Claim {
  connection: Socket;
}

/** Waits for a claim (or for serve to go), then supervises the claimed job; returns its status. */
export async function warmSupervisor(
  io: ProcessIO,
  leash: Readable | undefined,
  report: PaneStream,
): Promise<number> {
  const path = io.paths.supervisorSock;
  let resolveClaim: (claimed: Claimed | undefined) => void = () => {};
  const claimed = new Promise<Claimed | undefined>((resolve) => {
    resolveClaim = resolve;
  });
  let taken = false;
  const server = process.getBuiltinModule('node:net').createServer((connection) => {
    if (taken) {
      connection.destroy();
      return;
    }
    readClaim(connection).then((claim) => {
      if (claim === undefined || taken) {
        connection.end('refused\n');
        return;
      }
      taken = true;
      resolveClaim({ ...claim, connection });
    });
  });
  const handed = handedSocket(io.env);
  const ino = handed === undefined ? await listenPrivate(server, path) : await listenHanded(server, handed);
  watchLeash(leash, () => resolveClaim(undefined));
  // While no claim has come: a claim that comes meanwhile waits for the rest of it, which the job
  // would otherwise have done itself.
  const warming = warmUp(() => taken);
  const claim = await claimed;
  if (claim !== undefined && handed !== undefined) {
    // Serve puts the next one's socket over the path on hearing it: said first. Launches that come
    // before then are refused (this socket closes below) and start their own, as after an unlink.
    leash?.destroy();
    report.write(Buffer.from('taken\n'), () => {});
    server.close();
  } else {
    // No later launch may wait on a socket that will never answer: gone before anything else.
    await unlinkOurs(path, ino);
    server.close();
  }
  if (claim === undefined) {
    await warming;
    return 0;
  }
  if (handed === undefined) {
    leash?.destroy();
    // A serve that went away meanwhile has nobody to start the next one: the job runs either way.
    report.write(Buffer.from('taken\n'), () => {});
  }
  const { connection } = claim;
  connection.on('error', () => {});
  await warming;
  if (claim.pane !== undefined) return superviseHanded(io, claim.pane, connection, claim.rest);
  try {
    return await superviseJob(io, claim.id, undefined, {
      claimed: (record) => {
        inJobDirectory(record.cwd);
        connection.end(`ok ${process.pid}\n`);
      },
    });
  } catch (error) {
    if (!connection.writableEnded) connection.end('refused\n');
    throw error;
  }
}

/** As a standby started in the job's directory: what the process table shows for it. */
function inJobDirectory(cwd: string): void {
  try {
    process.chdir(cwd);
  } catch {}
}

/**
 * Supervises the job a pane's wrapper handed over (exec-handoff.ts) as the supervisor that wrapper
 * would have started: with the wrapper's environment (its pane's variables, its Herdr or tmux, its
 * HOME), its warnings on the wrapper's stderr, ended by the wrapper's `term` as by SIGTERM, and its
 * end (status or error) told to the wrapper, which exits with it. A wrapper that went away (its pane
 * closed) changes nothing: the job runs on, as it outlives a closed pane with a supervisor of its own.
 */
async function superviseHanded(
  io: ProcessIO,
  pane: PaneClaim,
  connection: Socket,
  rest: string,
): Promise<number> {
  let open = true;
  const say = (text: string) => {
    if (open && !connection.writableEnded && !connection.destroyed) connection.write(text);
  };
  connection.once('close', () => {
    open = false;
    go(false);
  });
  const env: NodeJS.ProcessEnv = { ...pane.env, [SUPERVISOR_ENV]: '1' };
  const handedIo: ProcessIO = {
    ...io,
    env,
    home: pane.env.HOME || io.home,
    warn: (line) => say(supervisorLine({ kind: 'warn', text: plainLine(line) })),
  };
  let heard = rest;
  let terminate: (() => void) | undefined;
  let asked = false;
  let go: (said: boolean) => void = () => {};
  const told = new Promise<boolean>((resolve) => {
    go = resolve;
  });
  const listen = () => {
    for (let newline = heard.indexOf('\n'); newline !== -1; newline = heard.indexOf('\n')) {
      const line = `${heard.slice(0, newline)}\n`;
      if (line === TERMINATE_LINE) asked = true;
      else if (line === GO_LINE) go(true);
      heard = heard.slice(newline + 1);
    }
    // Only the one word is ever said: anything longer is dropped, never kept growing.
    if (heard.length > TERMINATE_LINE.length) heard = '';
    if (asked) terminate?.();
  };
  connection.on('data', (chunk: string) => {
    heard += chunk;
    listen();
  });
  connection.resume();
  // The wrapper may have given up on this process (it stalled) and started a supervisor of its
  // own: the job is claimed only once the wrapper says it still waits for this one.
  say(supervisorLine({ kind: 'ready' }));
  const wait = setTimeout(() => go(false), GO_WAIT_MS);
  const going = await told;
  clearTimeout(wait);
  if (!going) {
    connection.end();
    return 0;
  }
  try {
    const status = await superviseJob(handedIo, pane.id, pane.command ?? undefined, {
      terminateWith: (fn) => {
        terminate = fn;
        listen();
      },
      claimed: (record) => {
        inJobDirectory(record.cwd);
        say(supervisorLine({ kind: 'ok', pid: process.pid }));
      },
    });
    say(supervisorLine({ kind: 'exit', code: status }));
    return status;
  } catch (error) {
    // Refused before the claim (started or ended meanwhile, another command): the wrapper words
    // it as its own supervisor would have, and exits with it.
    const known = error instanceof DogsledError;
    say(
      supervisorLine({
        kind: 'error',
        message: known ? error.message : `internal error: ${messageOf(error)}`,
        exitCode: known ? error.exitCode : EXIT.internal,
        hint: known ? error.hint : undefined,
      }),
    );
    return known ? error.exitCode : EXIT.internal;
  } finally {
    connection.end();
  }
}

/** The inode of supervisor.sock when serve made it and handed it over (WARM_SOCKET_ENV), else undefined. */
function handedSocket(env: NodeJS.ProcessEnv): number | undefined {
  const ino = env[WARM_SOCKET_ENV];
  return ino !== undefined && /^\d{1,20}$/.test(ino) ? Number(ino) : undefined;
}

/** Accepts on the socket serve handed over (descriptor WARM_SOCKET_FD); its inode at the path. */
function listenHanded(server: Server, ino: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ fd: WARM_SOCKET_FD }, () => {
      server.off('error', reject);
      resolve(ino);
    });
  });
}

/** Removes supervisor.sock only while it is still this process's (a later warm one may own it). */
async function unlinkOurs(path: string, ino: number): Promise<void> {
  const found = await lstat(path).catch(() => undefined);
  if (found?.isSocket() && found.ino === ino) await unlink(path).catch(() => undefined);
}

/**
 * One claim from a connection: a launch's job id, or a pane's claim (core/jobs/warm-handoff-lines.ts);
 * undefined for anything else (bad bytes, too long, too slow).
 */
function readClaim(connection: Socket): Promise<Claim | undefined> {
  return new Promise((resolve) => {
    let heard = '';
    let settled = false;
    const done = (claim: Claim | undefined) => {
      // Once: a later end or error must not take the listeners the pane's supervision adds.
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.removeAllListeners('data');
      connection.pause();
      resolve(claim);
    };
    const timer = setTimeout(() => done(undefined), CLAIM_READ_MS);
    connection.setEncoding('utf8');
    connection.on('error', () => done(undefined));
    connection.once('end', () => done(undefined));
    connection.on('data', (chunk: string) => {
      heard += chunk;
      const end = heard.indexOf('\n');
      const pane = isPaneClaim(heard);
      if (end >= 0) {
        const line = heard.slice(0, end);
        const rest = heard.slice(end + 1);
        if (pane) {
          const claim = parsePaneClaim(line);
          done(claim === undefined ? undefined : { id: claim.id, pane: claim, rest });
        } else {
          const id = CLAIM.exec(`${line}\n`)?.[1];
          done(id === undefined ? undefined : { id, pane: undefined, rest });
        }
      } else if (heard.length > (pane ? PANE_CLAIM_MAX_BYTES : CLAIM_MAX_BYTES)) done(undefined);
    });
  });
}

/** Calls `gone` once serve's pipe ends; nothing more is read from it after that or after a claim. */
function watchLeash(leash: Readable | undefined, gone: () => void): void {
  if (leash === undefined) {
    gone();
    return;
  }
  leash.on('error', gone);
  leash.once('end', gone);
  leash.once('close', gone);
  // What serve writes (nothing) is dropped; reading is what notices the end.
  leash.resume();
}
