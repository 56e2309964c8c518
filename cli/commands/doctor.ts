// `dogsled doctor [--json] [--host H]`: the cleanup survey as a report, of this host or of the
// peer --host names (service/actions/doctor-action.ts). Changes nothing: every repository is
// fetched (remote-tracking refs are what make pushed work count), nothing is removed.

import { type CleanupUserIO, doctorHost } from '../../service/actions/doctor-action.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { paint } from '../render/color.js';
import { renderDoctor } from '../render/doctor-human.js';
import { progressOnTerminal } from '../terminal-user.js';

export interface DoctorFlags {
  json?: boolean;
  host?: string;
}

/** The cleanup's IO for this process: its directory, and a progress line on a terminal. */
export async function cleanupIO(ctx: CliContext): Promise<CleanupUserIO> {
  const progress = progressOnTerminal();
  return { ...(await hostIO(ctx)), cwd: process.cwd(), ...(progress ? { progress } : {}) };
}

export async function doctorCommand(flags: DoctorFlags, ctx: CliContext): Promise<number> {
  const report = await doctorHost(await cleanupIO(ctx), { host: flags.host });
  if (flags.json) {
    for (const warning of report.warnings) ctx.warn(`dogsled: warning: ${warning}`);
    ctx.out(`${JSON.stringify(report)}\n`);
  } else {
    ctx.out(`${renderDoctor(report, paint(ctx.color)).join('\n')}\n`);
  }
  return 0;
}
