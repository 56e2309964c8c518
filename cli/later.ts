// Commands of the spec that this build does not offer yet. Each answers with one line and exit 2
// instead of pretending to work; the list shrinks as the capabilities land.

export interface LaterCommand {
  name: string;
  summary: string;
  waitsFor: string;
}

const AGENTS = 'agents, the inbox and Herdr support are still being built';

export const LATER_COMMANDS: LaterCommand[] = [
  { name: 'board', summary: "an owner's children, jobs and tickets", waitsFor: AGENTS },
  { name: 'send', summary: 'send a message to an agent', waitsFor: AGENTS },
  { name: 'inbox', summary: "this agent's inbox", waitsFor: AGENTS },
  { name: 'hook', summary: 'harness hooks (context, inbox, gate)', waitsFor: AGENTS },
  { name: 'mcp', summary: 'dogsled tools over MCP stdio', waitsFor: AGENTS },
  { name: 'sidebar', summary: 'the docked work board', waitsFor: AGENTS },
  { name: 'machine', summary: "Herdr's saved machines", waitsFor: 'peers over SSH are still being built' },
  {
    name: 'retry',
    summary: 'read an unreachable host again now',
    waitsFor: 'peers over SSH are still being built',
  },
  { name: 'quota', summary: 'quota snapshots', waitsFor: 'quota snapshots are still being built' },
];
