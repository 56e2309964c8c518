// A child's final reply and its usage, captured before its pane closes (spec, "Finishing and
// closing": `done` captures it, and `close` "ends it and keeps the reply"): the last assistant
// message of its transcript, found by its agent session, else the pane's last lines; and the usage
// the whole transcript records (core/receipts). Escapes are stripped; null when neither can be read.

import type { ModelUsage } from '../core/receipts/usage.js';
import { stripEscapes } from '../core/text/clean.js';
import { discoverTranscript, formatOf, readFinalReply } from '../probe/transcripts/index.js';
import { readTranscriptUsage } from '../probe/transcripts/usage-read.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Agent } from '../terminal/port-records.js';
import { recentOutput } from './start-tries.js';

export interface ChildEnd {
  reply: string | null;
  /** The transcript's usage per model; null: unknown (no transcript, unreadable, or none recorded). */
  usage: ModelUsage[] | null;
}

export async function finalReply(
  io: { home: string; now: () => number },
  port: TerminalPort,
  agent: Agent,
): Promise<string | null> {
  return (await childEnd(io, port, agent)).reply;
}

export async function childEnd(
  io: { home: string; now: () => number },
  port: TerminalPort,
  agent: Agent,
): Promise<ChildEnd> {
  const kind = agent.agent;
  const session = agent.agent_session;
  let usage: ModelUsage[] | null = null;
  if (kind !== undefined) {
    const found = await discoverTranscript(
      { agent: kind, session: session ? { kind: session.kind, value: session.value } : null, home: io.home },
      { now: io.now },
    ).catch(() => null);
    const format = formatOf(kind);
    if (found?.path && format) {
      const tally = await readTranscriptUsage(found.path, format);
      const models = tally?.models() ?? [];
      usage = models.length > 0 ? models : null;
      const text = await readFinalReply(found.path, kind);
      if (text !== null) return { reply: text, usage };
    }
  }
  const recent = await recentOutput(port, agent.pane_id);
  return { reply: recent === null ? null : stripEscapes(recent), usage };
}
