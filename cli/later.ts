// Commands of the spec that this build does not offer yet. Each answers with one line and exit 2
// instead of pretending to work; the list shrinks as the capabilities land.

export interface LaterCommand {
  name: string;
  summary: string;
  waitsFor: string;
}

export const LATER_COMMANDS: LaterCommand[] = [];
