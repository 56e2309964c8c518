// The sidebar's ⏎ on a card: the terminal switched to the row's pane (Herdr focuses it; tmux switches
// the clients showing the board to the pane's session and window). The terminal is opened on the
// first jump and kept: its module is loaded then, never on the way to the board's first frame.

import type { TerminalPort } from '../terminal/port.js';
import type { ProcessIO } from './verb-io.js';

export type PaneJump = (pane: string) => Promise<void>;

/** A jump for `commandName`'s process, which opens this host's terminal once, on its first use. */
export function paneJump(io: ProcessIO, commandName: string): PaneJump {
  let port: Promise<TerminalPort> | undefined;
  return async (pane) => {
    port ??= import('../terminal/open.js').then(({ openTerminal }) =>
      openTerminal({ env: io.env, home: io.home, commandName, warn: () => {} }),
    );
    await (await port).focusPane(pane);
  };
}
