// When a child's `dogsled done` turn has ended (spec, "Items and closing"): the first idle or done
// observation after the mark ends the marked turn, including after a restore without a completion
// counter. Working, blocked and unknown never authorize closure. Pure.

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
