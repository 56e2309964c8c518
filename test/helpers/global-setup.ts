// Builds the CLI bundle once before the suite, so `npm test` needs no separate build step and
// integration tests run the same file a user installs. A failed build is reported here and leaves
// no bundle behind, so every test that runs the CLI fails loudly while unit tests still report.
//
// Also names this run (test/helpers/tree.ts puts the token in every temp dir's name) and, at the
// end, removes and lists any temp dir of it still in the temp dir. Each file removes its own and
// fails if it cannot (temp-cleanup.ts), so one found here was made again after its file ended: by
// a process a test left running (a job's supervisor writing its last record makes its state dir
// anew). It is listed, as a flaky test is, as a race to fix, and does not fail the run.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: the build script is plain ESM without types.
import { buildCli, buildPiExtension } from '../../scripts/build.mjs';
import { removeDir } from './remove-dir.js';
import { RUN_TOKEN_ENV, removedDirsLog } from './tree.js';

// vitest runs a global setup once per project (fast, slow) and for the root, all in one process:
// they share one build rather than race to write dist/, and one token and teardown.
const shared = globalThis as { dogsledBuild?: Promise<void>; dogsledLeftovers?: Promise<void> };

export default async function setup(): Promise<() => Promise<void>> {
  // Set before the workers start: they and every process they start inherit it.
  process.env[RUN_TOKEN_ENV] ??= randomBytes(3).toString('hex');
  shared.dogsledBuild ??= build();
  await shared.dogsledBuild;
  return () => {
    shared.dogsledLeftovers ??= leftovers(process.env[RUN_TOKEN_ENV] as string);
    return shared.dogsledLeftovers;
  };
}

async function build(): Promise<void> {
  try {
    await buildCli();
    await buildPiExtension();
  } catch (error) {
    await rm(join(import.meta.dirname, '..', '..', 'dist'), { recursive: true, force: true });
    process.stderr.write(`CLI bundle failed to build; CLI tests will fail:\n${String(error)}\n`);
  }
}

/** Removes this run's temp dirs still there and lists them on stderr: each file removed its own. */
export async function leftovers(token: string): Promise<void> {
  const left = (await readdir(tmpdir()))
    .filter((name) => name.includes(`-${token}-`))
    .map((name) => join(tmpdir(), name));
  const log = removedDirsLog(token);
  const madeBy = new Map(
    (await readFile(log, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line.includes('\t'))
      .map((line) => line.split('\t') as [string, string]),
  );
  await rm(log, { force: true });
  if (left.length === 0) return;
  // What each holds, and the file it was made for, name the process that made it again.
  const listed = await Promise.all(
    left.map(async (dir) => {
      const file = madeBy.get(dir);
      return `${dir}${file ? ` (made for ${file})` : ''}\n${(await contents(dir)).join('\n')}`;
    }),
  );
  await Promise.all(left.map(removeDir));
  process.stderr.write(
    `\n${left.length} temp dir(s) of this run made again after their file ended (removed now; a ` +
      `process a test left running?):\n${listed.join('\n')}\n`,
  );
}

/** Up to 30 paths under `dir`, indented, for the listing above. */
async function contents(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const shown = names.slice(0, 30).map((name) => `  ${name}`);
  return names.length > 30 ? [...shown, `  … ${names.length - 30} more`] : shown;
}
