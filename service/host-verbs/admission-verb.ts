// `host admission`: what became here of a ticket another host's service admitted onto this one, for
// that owner to settle it exactly when its launch call failed or its service stopped meanwhile. The
// launch's own record decides (an agent's launch record, a job's record, found by the ids the
// owner chose), with this host's item for it; `end` ends one that never started, even one not made
// yet, so a launch still on its way here then refuses the id and nothing starts after the answer.

import * as z from 'zod/mini';
import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { endReservations } from '../hosts/reserve-room.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import { updateJobRecord } from '../state/records/job-records.js';
import { endUnstartedLaunch, readLaunchRecord } from '../state/records/launch-files.js';
import { readItems } from '../state/records/queue-items.js';
import { AgentRequestSchema, JobRequestSchema } from '../state/schemas/queue-items-schemas.js';
import { stdinRequest } from './stdin-request.js';
import type { VerbIO, VerbResult } from './verb-table.js';

const ID = /^[a-z]_[a-z0-9]{6,32}$/;

export const AdmissionAskSchema = lazySchema(() =>
  z
    .looseObject({
      ticket: z.string().check(z.regex(ID)),
      item: z.string().check(z.regex(ID)),
      owner: z.nullable(z.string()),
      reservation: z.nullable(z.string()),
      /** The job's id and request, for a job ticket. */
      job: z.nullable(z.looseObject({ id: z.string().check(z.regex(ID)), request: JobRequestSchema })),
      /** The agent's request (its launch id names the record), for an agent ticket. */
      agent: z.nullable(AgentRequestSchema),
      /** Why a launch that never started ends now; null only asks. */
      end: z.nullable(z.string()),
    })
    .check(z.refine((ask) => (ask.job === null) !== (ask.agent === null))),
);

export type AdmissionAsk = z.infer<typeof AdmissionAskSchema>;

/** `started` with this host's item; `not-started` with why; `pending`: no start yet, not ended. */
export interface AdmissionAnswer {
  state: 'started' | 'not-started' | 'pending';
  reason: string | null;
  item: Item | null;
}

/** `host admission` with the ask on stdin: the answer above. */
export async function admissionVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const names = { verb: 'admission', noun: 'ask', kind: 'an admission ask' };
  const ask = stdinRequest(names, io, AdmissionAskSchema, args);
  const answer = ask.agent !== null ? await agentHere(io, ask) : await jobHere(io, ask);
  // Never started: the room it held here is free again.
  if (answer.state === 'not-started' && ask.end !== null && ask.reservation !== null)
    await endReservations(io, [ask.reservation]).catch(() => undefined);
  if (answer.state !== 'started') return { value: answer };
  const item = (await readItems(io)).items.find((entry) => entry.id === ask.item) ?? null;
  return { value: { ...answer, item } };
}

async function agentHere(io: VerbIO, ask: AdmissionAsk): Promise<AdmissionAnswer> {
  const request = ask.agent as NonNullable<AdmissionAsk['agent']>;
  let record = await readLaunchRecord(io.paths, request.launch);
  if (record !== undefined && record.ticket !== ask.ticket)
    throw new DogsledError(`host admission: launch ${request.launch} is not ticket ${ask.ticket}'s`);
  if (ask.end !== null && (record === undefined || record.state === 'preparing')) {
    record = await endUnstartedLaunch(
      io,
      {
        id: request.launch,
        ticket: ask.ticket,
        item: ask.item,
        owner: ask.owner,
        host: LOCAL_HOST.id,
        name: request.name,
        kind: request.kind,
        profile: request.profile,
        model: null,
        role: 'reader',
        cwd: request.cwd,
        branch: request.branch,
        worktree: null,
        pane: null,
        terminal_id: null,
        workspace: null,
      },
      ask.end,
    );
  }
  if (record === undefined) return pending('no launch record yet');
  if (record.state === 'started') return { state: 'started', reason: null, item: null };
  if (record.state === 'refused' || record.state === 'failed')
    return { state: 'not-started', reason: record.error, item: null };
  return pending(`launch ${record.id} is ${record.state} after ${record.attempts} tries`);
}

async function jobHere(io: VerbIO, ask: AdmissionAsk): Promise<AdmissionAnswer> {
  const { id, request } = ask.job as NonNullable<AdmissionAsk['job']>;
  const now = io.now();
  return updateJobRecord(io, id, (current) => {
    if (current !== undefined && current.ticket !== ask.ticket)
      throw new DogsledError(`host admission: job ${id} is not ticket ${ask.ticket}'s`);
    if (current?.started_ms != null) return { result: { state: 'started', reason: null, item: null } };
    if (current?.ended_ms != null)
      return { result: { state: 'not-started', reason: current.reason, item: null } };
    if (ask.end === null) return { result: pending(current ? 'not started yet' : 'no job record yet') };
    const ended: JobRecord = current
      ? { ...current, ended_ms: now, reason: ask.end }
      : {
          version: 1,
          id,
          command: request.command,
          cwd: request.cwd,
          host: LOCAL_HOST.id,
          owner: ask.owner,
          pane: null,
          created_ms: now,
          started_ms: null,
          ended_ms: now,
          exit_code: null,
          signal: null,
          reason: ask.end,
          timeout_ms: request.timeout_ms,
          idle_timeout_ms: request.idle_timeout_ms,
          ticket: ask.ticket,
          item: ask.item,
          reservation: ask.reservation,
        };
    return { result: { state: 'not-started', reason: ask.end, item: null }, next: ended };
  });
}

function pending(why: string): AdmissionAnswer {
  return { state: 'pending', reason: why, item: null };
}
