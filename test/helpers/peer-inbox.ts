// A child's inbox reader on a test peer, registered the way its harness does it: the first run of
// its `hook inbox` (Claude Code's UserPromptSubmit), in the child's pane's name, with the peer's
// Herdr, run there by the peers' own dogsled build. Nothing of the module under test is replaced.

import type { Peer } from '../e2e/peers/index.js';

export async function registerPeerReader(
  peer: Peer,
  herdrSocket: string,
  /** The peers' remote_command: node and their copy of the bundle. */
  remoteCommand: readonly string[],
  pane: string,
  prompt = 'go',
): Promise<void> {
  const [node, bundle] = remoteCommand as [string, string];
  await peer.run([
    'env',
    'HERDR_ENV=1',
    `HERDR_SOCKET_PATH=${herdrSocket}`,
    `HERDR_PANE_ID=${pane}`,
    'sh',
    '-c',
    'printf %s "$1" | exec "$2" "$3" hook inbox --harness claude --event UserPromptSubmit',
    'sh',
    JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt }),
    node,
    bundle,
  ]);
}
