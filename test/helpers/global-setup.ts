// Builds the CLI bundle once before the suite, so `npm test` needs no separate build step and
// integration tests run the same file a user installs. A failed build is reported here and leaves
// no bundle behind, so every test that runs the CLI fails loudly while unit tests still report.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
// @ts-expect-error: the build script is plain ESM without types.
import { buildCli, buildPiExtension } from '../../scripts/build.mjs';

// vitest runs a global setup once per project (fast, slow) and for the root, all in one process:
// they share one build rather than race to write dist/.
const shared = globalThis as { dogsledBuild?: Promise<void> };

export default function setup(): Promise<void> {
  shared.dogsledBuild ??= build();
  return shared.dogsledBuild;
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
