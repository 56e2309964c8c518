// The shared port contract against the fake Herdr (its socket, its panes' real shells).

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openTerminal } from '../../../service/terminal/open.js';
import { startFakeHerdr } from '../../fakes/herdr/harness.js';
import { tempDir } from '../../helpers/tree.js';
import { portContract } from './terminal-port-suite.js';

portContract('the port against the fake Herdr', async () => {
  const root = await tempDir('dogsled-port-herdr-');
  const home = join(root, 'home');
  const work = join(root, 'work');
  await Promise.all([home, work].map((path) => mkdir(path, { recursive: true })));
  const fake = await startFakeHerdr({ dir: root, env: { HOME: home } });
  const port = await openTerminal({ env: fake.env, home });
  // A workspace to be the active one, as a user's Herdr always has.
  await port.createWorkspace({ cwd: work, label: 'active' });
  return {
    port,
    kind: 'herdr-socket',
    work,
    layout: true,
    async stop() {
      await fake.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
});
