// The supervisor `serve` keeps warm (WARM_ENV, started by daemon/warm-keeper.ts): a job supervisor
// whose Node has already started, waiting on supervisor.sock in the state dir for one launch to hand
// it a job, so a waiting `run` pays for one Node start, not two. A claim is one connection saying
// `JOB_ID\n`. The first well-formed one takes it: the socket is unlinked and closed, serve hears
// `taken` on this process's stdout (and starts the next warm one), the record's start claim is made
// and the claimer is answered `ok PID`; from there it is that job's supervisor, exactly as a standby
// after `go`. A claimer that gave up (this process was frozen) has started the job elsewhere: the
// start claim refuses it and this process exits having run nothing. Its stdin is serve's pipe: when
// that closes while it is unclaimed, it leaves.

import { lstat, unlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { listenPrivate } from '../../state/engine/private-socket.js';
import type { ProcessIO } from '../../state/io.js';
import { superviseJob } from './exec-supervise.js';
import { warmUp } from './exec-warm-up.js';

/** A claim is a job id (state/job-records.ts's rule, bounded) and a newline. */
const CLAIM = /^(j_[A-Za-z0-9_-]{1,60})\n$/;
/** A connection that has not said a whole claim in this long is dropped; the socket stays open. */
const CLAIM_READ_MS = 5_000;
const CLAIM_MAX_BYTES = 64;

interface Claimed {
  id: string;
  connection: Socket;
}

/** Waits for a claim (or for serve to go), then supervises the claimed job; returns its status. */
export async function warmSupervisor(
  io: ProcessIO,
  leash: Readable | undefined,
  report: NodeJS.WritableStream,
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
    readClaim(connection).then((id) => {
      if (id === undefined || taken) {
        connection.end('refused\n');
        return;
      }
      taken = true;
      resolveClaim({ id, connection });
    });
  });
  const ino = await listenPrivate(server, path);
  watchLeash(leash, () => resolveClaim(undefined));
  // While no claim has come: a claim that comes meanwhile waits for the rest of it, which the job
  // would otherwise have done itself.
  const warming = warmUp();
  const claim = await claimed;
  // No later launch may wait on a socket that will never answer: gone before anything else.
  await unlinkOurs(path, ino);
  server.close();
  if (claim === undefined) {
    await warming;
    return 0;
  }
  leash?.destroy();
  report.write('taken\n');
  const { connection } = claim;
  connection.on('error', () => {});
  await warming;
  try {
    return await superviseJob(io, claim.id, undefined, (record) => {
      // As a standby started in the job's directory: what the process table shows for it.
      try {
        process.chdir(record.cwd);
      } catch {}
      connection.end(`ok ${process.pid}\n`);
    });
  } catch (error) {
    if (!connection.writableEnded) connection.end('refused\n');
    throw error;
  }
}

/** Removes supervisor.sock only while it is still this process's (a later warm one may own it). */
async function unlinkOurs(path: string, ino: number): Promise<void> {
  const found = await lstat(path).catch(() => undefined);
  if (found?.isSocket() && found.ino === ino) await unlink(path).catch(() => undefined);
}

/** One claim line from a connection, or undefined for anything else (bad bytes, too long, too slow). */
function readClaim(connection: Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    let heard = '';
    const done = (id: string | undefined) => {
      clearTimeout(timer);
      connection.removeAllListeners('data');
      resolve(id);
    };
    const timer = setTimeout(() => done(undefined), CLAIM_READ_MS);
    connection.setEncoding('latin1');
    connection.on('error', () => done(undefined));
    connection.once('end', () => done(undefined));
    connection.on('data', (chunk: string) => {
      heard += chunk;
      const end = heard.indexOf('\n');
      if (end >= 0) done(CLAIM.exec(heard.slice(0, end + 1))?.[1]);
      else if (heard.length > CLAIM_MAX_BYTES) done(undefined);
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
