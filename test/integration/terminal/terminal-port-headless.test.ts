// The shared port contract headless: no Herdr and no tmux asked for, jobs as detached groups.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openTerminal } from '../../../service/terminal/open.js';
import { tempDir } from '../../helpers/tree.js';
import { portContract } from './terminal-port-suite.js';

portContract('the port headless', async () => {
  const root = await tempDir('dogsled-port-headless-');
  const home = join(root, 'home');
  const work = join(root, 'work');
  await Promise.all([home, work].map((path) => mkdir(path, { recursive: true })));
  const port = await openTerminal({ env: { PATH: '/usr/bin:/bin', HOME: home }, home });
  return {
    port,
    kind: 'headless',
    work,
    layout: false,
    stop: () => rm(root, { recursive: true, force: true }),
  };
});
