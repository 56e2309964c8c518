// The line `send` answers with, for the CLI and the MCP `send` tool alike, so the two never
// disagree: the record's id, its target, and, when the target's harness reads its inbox only from
// its hooks (Claude Code and Codex) and its agent is not working, that the record waits for its
// next prompt or stop (spec, "Inbox").

import type { SendResult } from '../../service/actions/peer-actions.js';
import { plainLine } from '../../service/core/text/clean.js';

export function sentLine({ record, to, waits }: SendResult): string {
  const label = to.name ? `${plainLine(to.name)} (${plainLine(to.pane)})` : plainLine(to.pane);
  const later = waits
    ? `: it is ${plainLine(waits.state)}, so ${plainLine(waits.harness)} reads ${record.id} at its next prompt or stop`
    : '';
  return `sent ${record.id} to ${label}${later}`;
}
