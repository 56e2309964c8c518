// Bundles test/helpers/state-worker.ts with the real service/state modules into one .mjs, so the
// concurrency tests run genuine separate node processes without a TypeScript loader.

import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
// @ts-expect-error: the build script is plain ESM without types.
import { BUNDLE_BANNER } from '../../scripts/build.mjs';

const here = dirname(fileURLToPath(import.meta.url));

export async function buildStateWorker(outDir: string): Promise<string> {
  const outfile = join(outDir, 'state-worker.mjs');
  await build({
    entryPoints: [join(here, 'state-worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: BUNDLE_BANNER },
    logLevel: 'warning',
  });
  return outfile;
}

export interface WorkerRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled worker to completion. */
export function runWorker(bundle: string, args: string[]): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface HeldWorker {
  pid: number;
  /** The first line the worker prints: "acquired" or "refused <message>". */
  firstLine: Promise<string>;
  /** Settles once the process has exited and been reaped (a zombie would still answer kill(pid, 0)). */
  exited: Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts a long-lived worker (the `serve` command) and exposes its first line. */
export function startWorker(bundle: string, args: string[]): HeldWorker {
  const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const firstLine = new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end >= 0) resolve(buffered.slice(0, end));
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      reject(new Error(`worker exited (${code ?? signal}) before printing`)),
    );
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  if (child.pid === undefined) throw new Error('worker did not start');
  return { pid: child.pid, firstLine, exited, kill: (signal) => child.kill(signal) };
}
