// A child's final reply, captured before its pane closes (spec, "Finishing and closing": `done`
// captures it, and `close` "ends it and keeps the reply"): the last assistant message of its
// transcript, found by its agent session, else the pane's last lines. Escapes are stripped; null
// when neither can be read.

import { stripEscapes } from '../core/text/clean.js';
import { discoverTranscript, readFinalReply } from '../probe/transcripts/index.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Agent } from '../terminal/port-records.js';
import { recentOutput } from './start-tries.js';

export async function finalReply(
  io: { home: string; now: () => number },
  port: TerminalPort,
  agent: Agent,
): Promise<string | null> {
  const kind = agent.agent;
  const session = agent.agent_session;
  if (kind !== undefined) {
    const found = await discoverTranscript(
      { agent: kind, session: session ? { kind: session.kind, value: session.value } : null, home: io.home },
      { now: io.now },
    ).catch(() => null);
    if (found?.path) {
      const text = await readFinalReply(found.path, kind);
      if (text !== null) return text;
    }
  }
  const recent = await recentOutput(port, agent.pane_id);
  return recent === null ? null : stripEscapes(recent);
}
