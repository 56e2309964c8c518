// When a child's `dogsled done` turn has ended (spec, "Items and closing"): the first idle or done
// observation after the mark ends the marked turn, including after a restore without a completion
// counter. Working, blocked and unknown never authorize closure. New inbox work the child accepted
// during that same turn cancels the mark: it has more to do. Pure.

export interface MarkSeen {
  /** Herdr's state_change_seq when the child marked, null when it was not known. */
  seq: number | null;
}

export interface AgentSeen {
  agent_status: string;
  state_change_seq: number;
}

export function turnEnded(mark: MarkSeen, agent: AgentSeen): boolean {
  if (agent.agent_status !== 'idle' && agent.agent_status !== 'done') return false;
  // A counter that went back (a restored Herdr) cannot order the turn: the idle state alone decides.
  return mark.seq === null || agent.state_change_seq !== mark.seq;
}

/** Inbox kinds that give a child work (a reply or notice it receives does not). */
const WORK_KINDS: ReadonlySet<string> = new Set(['message', 'task']);

/**
 * The inbox record that cancels the mark: work delivered to the child at or after the moment it
 * marked, before the service saw its turn end. Null when there is none.
 */
export function cancellingWork<R extends { id: string; kind: string; delivered_ms: number | null }>(
  mark: { marked_ms: number },
  records: readonly R[],
): R | null {
  return (
    records.find(
      (r) => WORK_KINDS.has(r.kind) && r.delivered_ms !== null && r.delivered_ms >= mark.marked_ms,
    ) ?? null
  );
}
