// Builds the CLI bundle once before the suite, so `npm test` needs no separate build step and
// integration tests run the same file a user installs.
// @ts-expect-error: the build script is plain ESM without types.
import { buildCli } from '../../scripts/build.mjs';

export default async function setup(): Promise<void> {
  await buildCli();
}
