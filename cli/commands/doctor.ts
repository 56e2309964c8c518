// `dogsled doctor [--json] [--host H]`: the cleanup survey as a report (service/cleanup/session.ts).
// Changes nothing: every repository is fetched (remote-tracking refs are what make pushed work
// count), nothing is removed. `--host` runs the same survey on a peer (host doctor there).

import { type CleanupCaller, doctorReport } from '../../service/cleanup/session.js';
import { LOCAL_HOST } from '../../service/hosts/local-facts.js';
import { hostOfFlag, remoteDoctor } from '../../service/hosts/peer-cleanup.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { paint } from '../render/color.js';
import { renderDoctor } from '../render/doctor-human.js';

export interface DoctorFlags {
  json?: boolean;
  host?: string;
}

/** This process as the cleanup's caller: its directory, and a progress line on a terminal. */
export function cleanupCaller(): CleanupCaller {
  return {
    cwd: process.cwd(),
    // One line rewritten in place, and only on a terminal: piped stderr stays clean.
    progress: process.stderr.isTTY
      ? (text) => process.stderr.write(`\r\x1b[K${text === '' ? '' : `dogsled: ${text}…`}`)
      : undefined,
  };
}

export async function doctorCommand(flags: DoctorFlags, ctx: CliContext): Promise<number> {
  const io = await hostIO(ctx);
  const peer = await hostOfFlag(io, flags.host);
  const report =
    peer === null ? await doctorReport(io, cleanupCaller(), LOCAL_HOST.id) : await remoteDoctor(io, peer);
  if (flags.json) {
    for (const warning of report.warnings) ctx.warn(`dogsled: warning: ${warning}`);
    ctx.out(`${JSON.stringify(report)}\n`);
  } else {
    ctx.out(`${renderDoctor(report, paint(ctx.color)).join('\n')}\n`);
  }
  return 0;
}
