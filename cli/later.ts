// Commands of the spec that this build does not offer yet. Each answers with one line and exit 2
// instead of pretending to work; the list shrinks as the capabilities land.

export interface LaterCommand {
  name: string;
  summary: string;
  waitsFor: string;
}

const AGENTS = 'launching child agents is still being built';

export const LATER_COMMANDS: LaterCommand[] = [
  { name: 'agent', summary: 'start a child agent', waitsFor: AGENTS },
  { name: 'read', summary: "a child's or job's newest output", waitsFor: AGENTS },
  { name: 'track', summary: 'track an existing pane as a child', waitsFor: AGENTS },
  { name: 'close', summary: 'close a child now', waitsFor: AGENTS },
  { name: 'done', summary: 'hand the task back to the owner', waitsFor: AGENTS },
];
