// What a command loads: a --require preload writes, at the command's exit, the built-in modules and
// bindings it loaded after the preload (process.moduleLoadList), one per line. Each run overwrites
// the file, so a caller running a command twice (the second from the code cache the first wrote:
// the cache key includes execArgv) reads the second run's list.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ModuleProbe {
  /** The file to pass as `-r <preload>`. */
  preload: string;
  /** What the last run loaded: `NativeModule vm`, `Internal Binding os`, ... */
  loaded: () => Promise<string[]>;
}

export async function moduleProbe(dir: string): Promise<ModuleProbe> {
  const out = join(dir, 'modules.txt');
  const preload = join(dir, 'module-probe.cjs');
  await writeFile(
    preload,
    `const before = new Set(process.moduleLoadList);
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.filter((m) => !before.has(m)).join('\\n')));`,
  );
  return { preload, loaded: async () => (await readFile(out, 'utf8')).split('\n').filter(Boolean) };
}
