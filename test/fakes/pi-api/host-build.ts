// Bundles the fake Pi host (host.ts) into one .mjs and starts it as a real process, so an
// end-to-end test runs the built extension in a process of its own that a test can SIGKILL.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../../helpers/cli.js';

export const EXTENSION = join(ROOT, 'plugins', 'pi', 'dist', 'index.js');

export async function buildPiHost(outDir: string): Promise<string> {
  const outfile = join(outDir, 'pi-host.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'host.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

export function startPiHost(host: string, log: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [host, EXTENSION, log], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}
