// Lets a test play the running service: it holds the real service lock from the test process, so
// `status` says up and placement judges a fixture snapshot as fresh.

import { hostname } from 'node:os';
import { ensureStateDir, statePaths } from '../../service/state/paths.js';
import { acquireServiceLock, type ServiceLock } from '../../service/state/records/service-lock.js';

export async function holdServiceLock(stateDir: string): Promise<ServiceLock> {
  await ensureStateDir(stateDir);
  return acquireServiceLock(
    statePaths(stateDir),
    { pid: process.pid, hostname: hostname(), started_ms: Date.now(), version: 'test' },
    {
      onLost: (error) => {
        throw error;
      },
    },
  );
}
