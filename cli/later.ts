// Commands of the spec that this build does not offer yet. Each answers with one line and exit 2
// instead of pretending to work; the list shrinks as the capabilities land.

export interface LaterCommand {
  name: string;
  summary: string;
  waitsFor: string;
}

const AGENTS = 'agents, the inbox and Herdr support are still being built';

export const LATER_COMMANDS: LaterCommand[] = [
  { name: 'mcp', summary: 'dogsled tools over MCP stdio', waitsFor: AGENTS },
  { name: 'machine', summary: "Herdr's saved machines", waitsFor: 'peers over SSH are still being built' },
  {
    name: 'retry',
    summary: 'read an unreachable host again now',
    waitsFor: 'peers over SSH are still being built',
  },
];
