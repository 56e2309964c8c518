// What the message layer needs from its caller: the shared state IO (paths, clock, warnings) and the
// environment and home that locate Herdr. Commands build it from their context, the service from
// its worker deps; the MCP server and the Pi extension will build it the same way.

import type { WorkIO } from '../state/work.js';

export interface InboxIO extends WorkIO {
  env: NodeJS.ProcessEnv;
  home: string;
}
