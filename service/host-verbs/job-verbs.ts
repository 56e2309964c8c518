// The host verbs a caller on another host runs to place and run work here: `reserve` (this host's
// own recheck under its placements lock), `launch` (a placed job, from a JSON request on stdin),
// and `job`, `logs`, `stop` of a job that runs here. Each argument is data; a job id is checked
// against the id pattern before it names a file.

import { join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { DogsledError } from '../core/common/errors.js';
import { reserveLocally } from '../hosts/reserve-room.js';
import { checkCommand } from '../jobs/command-check.js';
import { launchJob } from '../jobs/job-launch.js';
import { stopJob } from '../jobs/job-stop.js';
import { reconcileJob } from '../jobs/reconcile.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import { openRegular } from '../state/engine/regular-file.js';
import { jobLogPath, readJobRecord } from '../state/records/job-records.js';
import { JobRequestSchema } from '../state/schemas/queue-items-schemas.js';
import { Deadline } from '../time/deadline.js';
import { stdinRequest } from './stdin-request.js';
import type { VerbIO, VerbResult } from './verb-table.js';

const ID = /^[a-z]_[a-z0-9]{6,32}$/;
/** One `logs` reply carries at most this much; the caller asks again from where it ended. */
const LOG_CHUNK_BYTES = 1024 * 1024;

function jobId(verb: string, value: string | undefined): string {
  if (value === undefined || !ID.test(value))
    throw new DogsledError(`host ${verb}: not a job id: "${value ?? ''}"`);
  return value;
}

/** `host reserve [OWNER]`: `{placed: true, reservation}` or `{placed: false, reason}`. */
export async function reserveVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  if (args.length > 1) throw new DogsledError(`host reserve: takes at most an owner, got "${args[1]}"`);
  const outcome = await reserveLocally(io, args[0] ?? null);
  if (outcome.kind === 'placed') return { value: { placed: true, reservation: outcome.reservation } };
  return { value: { placed: false, reason: outcome.refusals.flatMap((r) => r.reason) } };
}

export const LaunchRequestSchema = lazySchema(() =>
  z.looseObject({
    job: z.string().check(z.regex(ID)),
    item: z.string().check(z.regex(ID)),
    request: JobRequestSchema,
    /** The job's directory relative to this host's home (a checkout under the caller's home), else null. */
    home_relative: z.nullable(z.string()),
    owner: z.nullable(z.string()),
    ticket: z.nullable(z.string()),
    reservation: z.nullable(z.string()),
  }),
);

export type LaunchRequest = z.infer<typeof LaunchRequestSchema>;

/** `host launch` with the request on stdin: the job, launched here (its pane, or headless). */
export async function launchVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const names = { verb: 'launch', noun: 'request', kind: 'a launch request' };
  const spec = stdinRequest(names, io, LaunchRequestSchema, args);
  const cwd = spec.home_relative === null ? spec.request.cwd : resolve(join(io.home, spec.home_relative));
  const request = { ...spec.request, cwd, caller_workspace: null };
  try {
    await checkCommand(request.command, cwd, io.env, '');
  } catch (error) {
    if (spec.reservation !== null) {
      const { endReservations } = await import('../hosts/reserve-room.js');
      await endReservations(io, [spec.reservation]).catch(() => undefined);
    }
    throw error;
  }
  // Headless, the supervisor this host's service keeps warm takes it when there is one.
  const launched = await launchJob(
    { ...io, warm: true },
    {
      jobId: spec.job,
      itemId: spec.item,
      request,
      owner: spec.owner,
      host: 'local',
      ticket: spec.ticket,
      reservation: spec.reservation,
      env: null,
    },
    new Deadline(),
  );
  return { value: { job: launched.job, item: launched.item } };
}

/** `host job ID`: the job's record, reconciled (a dead wrapper is recorded as lost). */
export async function jobVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const id = jobId('job', args[0]);
  let record = await readJobRecord(io.paths, id);
  if (record.ended_ms === null) record = await reconcileJob(io, record);
  return { value: record };
}

/** `host logs ID OFFSET`: up to 1 MiB of the log from OFFSET (base64), the next offset and the record. */
export async function logsVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const id = jobId('logs', args[0]);
  const offset = Number(args[1] ?? '0');
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new DogsledError(`host logs: bad offset "${args[1]}"`);
  // The record first: once it says ended, the bytes read after it are the last ones.
  let record = await readJobRecord(io.paths, id);
  if (record.ended_ms === null) record = await reconcileJob(io, record);
  const handle = await openRegular(jobLogPath(io.paths, id));
  let data = Buffer.alloc(0);
  if (handle !== undefined) {
    try {
      const buffer = Buffer.alloc(LOG_CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, LOG_CHUNK_BYTES, offset);
      data = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }
  return {
    value: {
      data: data.toString('base64'),
      next: offset + data.length,
      more: data.length === LOG_CHUNK_BYTES,
      record,
    },
  };
}

/** `host stop ID`: stops the job here (stop.ts), answering with how it went. */
export async function stopVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const id = jobId('stop', args[0]);
  return { value: await stopJob(io, id) };
}
