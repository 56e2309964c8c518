// What harness hooks report about their agent's state per terminal, for backends that detect no
// agents (tmux): agent-reports/<terminal>.json, one small file per terminal written atomically by
// the pane's own hooks (one writer each, so no lock), read all at once by the tmux port.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { hookedAgentState } from '../../core/agents/hook-agent-state.js';
import type { HookReport } from '../../terminal/tmux/tmux-records.js';
import { lazySchema } from '../engine/lazy-schema.js';
import { readState, writeState } from '../engine/store.js';
import '../engine/zod-messages.js';

export const AgentReportSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    terminal_id: z.string(),
    state: z.enum(['working', 'idle', 'blocked', 'unknown']),
    at_ms: z.number(),
    harness: z.string(),
    session_id: z.nullable(z.string()),
    transcript_path: z.nullable(z.string()),
  }),
);
export type AgentReportFile = z.infer<typeof AgentReportSchema>;

export function agentReportsDir(stateDir: string): string {
  return join(stateDir, 'agent-reports');
}

/** A terminal id as a file name: `%3@4242` → `p3@4242`; undefined for any other id. */
function reportFile(stateDir: string, terminal: string): string | undefined {
  const match = /^%(\d+)@(\d+)$/.exec(terminal);
  return match ? join(agentReportsDir(stateDir), `p${match[1]}@${match[2]}.json`) : undefined;
}

function fileOf(stateDir: string, terminal: string): string {
  const file = reportFile(stateDir, terminal);
  if (file === undefined) throw new Error(`not a tmux terminal id: ${terminal}`);
  return file;
}

export async function writeAgentReport(stateDir: string, report: AgentReportFile): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(agentReportsDir(stateDir), { recursive: true, mode: 0o700 });
  await writeState(fileOf(stateDir, report.terminal_id), AgentReportSchema, report);
}

/**
 * Removes a terminal's report (its item expired); one already gone, or a terminal that is not a tmux
 * one (no report can exist), is nothing to do. Only a file goes: a directory in its place is an error.
 */
export async function removeAgentReport(stateDir: string, terminal: string): Promise<void> {
  const file = reportFile(stateDir, terminal);
  if (file === undefined) return;
  const { unlink } = await import('node:fs/promises');
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return;
    const what =
      error.code === 'EISDIR' || error.code === 'EPERM' ? 'is not a file' : (error.code ?? error.message);
    throw new Error(`cannot remove the agent report ${file}: ${what}`);
  });
}

/** Every report, its state corrected by its transcript's activity; unreadable ones are skipped. */
export async function readAgentReports(stateDir: string): Promise<Map<string, HookReport>> {
  const names = await readdir(agentReportsDir(stateDir)).catch(() => [] as string[]);
  const { stat } = await import('node:fs/promises');
  const reports = new Map<string, HookReport>();
  const quiet = { warn: () => {}, now: Date.now };
  await Promise.all(
    names
      .filter((name) => /^p\d+@\d+\.json$/.test(name))
      .map(async (name) => {
        const report = await readState(join(agentReportsDir(stateDir), name), AgentReportSchema, quiet).catch(
          () => undefined,
        );
        if (!report) return;
        const modified = report.transcript_path
          ? ((await stat(report.transcript_path).catch(() => undefined))?.mtimeMs ?? null)
          : null;
        const session = report.transcript_path
          ? { kind: 'path' as const, value: report.transcript_path }
          : report.session_id
            ? { kind: 'id' as const, value: report.session_id }
            : undefined;
        reports.set(report.terminal_id, {
          state: hookedAgentState(report, modified),
          at_ms: report.at_ms,
          ...(session ? { session } : {}),
        });
      }),
  );
  return reports;
}
