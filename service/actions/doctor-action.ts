// `doctor [--host H]`, from every front end: the cleanup survey of this host
// (service/cleanup/session.ts, with how dogsled is installed here) or of the peer `--host` names,
// which surveys its own repositories, Herdr and files (`host doctor` there). Changes nothing. The
// survey tells the user what it is doing through UserIO.progress.

import type { DoctorReport } from '../cleanup/doctor-report.js';
import { type CleanupCaller, doctorReport } from '../cleanup/session.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { hostOfFlag, remoteDoctor } from '../hosts/peer-cleanup.js';
import type { UserHostIO } from './verb-io.js';

export type { BranchEntry, DoctorReport, WorktreeEntry } from '../cleanup/doctor-report.js';
export type { PaneEntry } from '../cleanup/panes/doctor-section.js';

/** A cleanup's IO: the caller's directory (its repository is surveyed and its checkout held). */
export interface CleanupUserIO extends UserHostIO {
  cwd: string;
}

export function cleanupCaller(io: CleanupUserIO): CleanupCaller {
  return { cwd: io.cwd, ...(io.progress ? { progress: io.progress } : {}) };
}

/** `host`: the `--host` text (an id or label; `local` or none for this host). */
export async function doctorHost(io: CleanupUserIO, request: { host?: string }): Promise<DoctorReport> {
  const peer = await hostOfFlag(io, request.host);
  return peer === null ? doctorReport(io, cleanupCaller(io), LOCAL_HOST.id) : remoteDoctor(io, peer);
}
