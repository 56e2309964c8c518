// `dogsled doctor [--json] [--host H]`: the cleanup survey as a report. Changes nothing: every
// repository is fetched (remote-tracking refs are what make pushed work count), nothing is removed.
// Herdr is read once per run (terminal-facts.ts). Peers are not reachable in this build, so --host
// accepts only the local host.

import { type CleanupIO, surveyCleanup } from '../../service/cleanup/doctor.js';
import { gatherTerminalFacts, type TerminalFacts } from '../../service/cleanup/terminal-facts.js';
import { LOCAL_HOST } from '../../service/hosts/local.js';
import type { CliContext } from '../context.js';
import { localHostFlag } from '../flags.js';
import { commandIO } from '../io.js';
import { paint } from '../render/color.js';
import { renderDoctor } from '../render/doctor-human.js';

export interface DoctorFlags {
  json?: boolean;
  host?: string;
}

/** Herdr's panes and workspaces and the holds they make, read once for this run. */
export function readTerminal(ctx: CliContext): Promise<TerminalFacts> {
  return gatherTerminalFacts({ env: ctx.env, home: ctx.home, warn: ctx.warn });
}

/** What the cleanup layer needs from the command line's context and the terminal side. */
export async function cleanupIO(ctx: CliContext, terminal: TerminalFacts): Promise<CleanupIO> {
  const io = await commandIO(ctx);
  return {
    paths: io.paths,
    now: io.now,
    warn: io.warn,
    config: io.config,
    home: ctx.home,
    callerCwd: process.cwd(),
    holds: terminal.holds,
    paneRootPids: terminal.paneRootPids,
    discoveredPaths: terminal.discoveredPaths,
    workspaceCheckouts: terminal.workspaceCheckouts,
    herdr: terminal.herdr ?? undefined,
    terminalWarnings:
      terminal.error === null
        ? []
        : [`herdr: ${terminal.error}; live panes cannot be ruled out, so every checkout is held`],
    // One line rewritten in place, and only on a terminal: piped stderr stays clean.
    progress: process.stderr.isTTY
      ? (text) => process.stderr.write(`\r\x1b[K${text === '' ? '' : `dogsled: ${text}…`}`)
      : undefined,
  };
}

export async function doctorCommand(flags: DoctorFlags, ctx: CliContext): Promise<number> {
  localHostFlag(flags.host, LOCAL_HOST);
  const io = await cleanupIO(ctx, await readTerminal(ctx));
  const { report } = await surveyCleanup(io, { processes: true, host: LOCAL_HOST.id });
  if (flags.json) {
    for (const warning of report.warnings) ctx.warn(`dogsled: warning: ${warning}`);
    ctx.out(`${JSON.stringify(report)}\n`);
  } else {
    ctx.out(`${renderDoctor(report, paint(ctx.color)).join('\n')}\n`);
  }
  return 0;
}
