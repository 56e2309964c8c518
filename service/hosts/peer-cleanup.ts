// `doctor --host` and `prune --host` on a peer: the peer surveys and prunes its own repositories,
// Herdr and files (`host doctor`, `host prune --plan|--yes`); this host only shows the plan, asks,
// and shows what came back. The peer rechecks each entry right before it removes it, so a plan
// shown here and confirmed later removes nothing that changed meanwhile.

import {
  type DoctorReport,
  DoctorReportSchema,
  type PruneReport,
  PruneReportSchema,
} from '../cleanup/doctor-report.js';
import type { PlanEntry, PruneCategory } from '../core/cleanup/prune-plan.js';
import { DogsledError } from '../core/common/errors.js';
import { SETUP_CAP_MS } from '../core/placement/budget.js';
import { findHost } from '../core/placement/placement.js';
import type { HostIO } from '../state/io.js';
import { type PeerHost, readFleet } from './fleet.js';
import { LOCAL_HOST } from './local-facts.js';
import { peerCall } from './peer-verb.js';

/** The peer `--host` names, or null for this host. */
export async function hostOfFlag(io: HostIO, text: string | undefined): Promise<PeerHost | null> {
  if (text === undefined || text === LOCAL_HOST.id || text === LOCAL_HOST.label) return null;
  const fleet = await readFleet(io);
  const peer = findHost(fleet.peers, text);
  if (peer === undefined) {
    const known = [LOCAL_HOST.id, ...fleet.peers.map((p) => p.id)].join(', ');
    throw new DogsledError(`--host: unknown host "${text}" (known: ${known})`);
  }
  return peer;
}

function invalid(peer: PeerHost, verb: string): DogsledError {
  return new DogsledError(`${peer.label}: host ${verb} answered something that is not dogsled's`);
}

export async function remoteDoctor(io: HostIO, peer: PeerHost): Promise<DoctorReport> {
  const value = await peerCall(io, peer, ['doctor'], { timeoutMs: SETUP_CAP_MS });
  const parsed = DoctorReportSchema.safeParse(value);
  if (!parsed.success) throw invalid(peer, 'doctor');
  // The peer names itself `local`; here it is the host it was asked as.
  return { ...parsed.data, host: peer.id };
}

export interface RemotePrune {
  plan: PlanEntry[];
  warnings: string[];
  report: PruneReport;
}

export async function remotePrune(
  io: HostIO,
  peer: PeerHost,
  categories: readonly PruneCategory[],
  apply: boolean,
): Promise<RemotePrune> {
  const value = (await peerCall(io, peer, ['prune', apply ? '--yes' : '--plan', ...categories], {
    timeoutMs: SETUP_CAP_MS,
  })) as { plan?: unknown; warnings?: unknown; report?: unknown };
  const report = PruneReportSchema.safeParse(value?.report);
  if (!report.success || !Array.isArray(value.plan) || !Array.isArray(value.warnings))
    throw invalid(peer, 'prune');
  return {
    plan: value.plan as PlanEntry[],
    warnings: value.warnings.filter((w): w is string => typeof w === 'string'),
    report: report.data,
  };
}
