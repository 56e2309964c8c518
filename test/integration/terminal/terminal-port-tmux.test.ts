// The shared port contract against a real tmux: a private server for this file (its own
// TMUX_TMPDIR and socket), found the way a process inside it finds it (TMUX), killed at the end.

import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openTerminal } from '../../../service/terminal/open.js';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { startTmuxServer } from '../../helpers/tmux-server.js';
import { tempDir } from '../../helpers/tree.js';
import { portContract } from './terminal-port-suite.js';

portContract('the port against a real tmux', async () => {
  const root = await tempDir('dogsled-tmux-');
  const home = join(root, 'home');
  const work = join(root, 'work');
  await Promise.all([home, work].map((path) => mkdir(path, { recursive: true })));
  const server = await startTmuxServer({
    dir: root,
    name: 'contract',
    env: { PATH: `${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home },
  });
  const port = await openTerminal({ env: server.env, home });
  return {
    port,
    kind: 'tmux',
    work,
    layout: true,
    async stop() {
      await server.kill();
      await rm(root, { recursive: true, force: true });
    },
  };
});
