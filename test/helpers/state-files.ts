// A state dir's files as a map (relative path to content), and putting one back: for tests that run
// two paths of a command (a lean bundle and the full one) on the same state and compare every file
// each left behind. The service lock (held by the test) and the code caches are left alone.

import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

const FIFO = '<fifo>';
const DIR = '<directory>';

function skipped(name: string): boolean {
  return name === 'code-cache' || name.startsWith('service.lock');
}

export async function stateFiles(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const name = relative(dir, path);
      if (skipped(name)) continue;
      if (entry.isDirectory()) {
        // Recorded too, so a directory where a state file belongs (or an empty one) comes back.
        files.set(name, Buffer.from(DIR));
        await walk(path);
      } else if (entry.isFile()) files.set(name, await readFile(path));
      else if (entry.isFIFO()) files.set(name, Buffer.from(FIFO));
    }
  };
  await walk(dir);
  return files;
}

export async function restoreState(dir: string, saved: Map<string, Buffer>): Promise<void> {
  for (const entry of await readdir(dir)) {
    if (!skipped(entry)) await rm(join(dir, entry), { recursive: true, force: true });
  }
  for (const [name, data] of saved) {
    await mkdir(join(dir, name, '..'), { recursive: true, mode: 0o700 });
    if (data.toString() === DIR) await mkdir(join(dir, name), { recursive: true, mode: 0o700 });
    else if (data.toString() === FIFO) await mkfifo(join(dir, name));
    else await writeFile(join(dir, name), data, { mode: 0o600 });
  }
}

/** Every file as text, for comparing what two runs left. */
export async function stateTexts(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries([...(await stateFiles(dir))].map(([name, data]) => [name, data.toString()]));
}

export async function mkfifo(path: string): Promise<void> {
  await rm(path, { force: true });
  await new Promise<void>((resolve, reject) =>
    spawn('mkfifo', [path]).on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`mkfifo ${code}`)),
    ),
  );
}
