// A release's two assets: the npm package tarball (`npm pack`: dist/, the plugins, profiles,
// service units and the Herdr plugin's manifest and fetch step) and its checksum file in
// sha256sum's format, `<hex>  dogsled-X.Y.Z.tgz`. Attach both to the GitHub release vX.Y.Z:
// plugin/fetch.sh downloads the tarball from there and refuses it unless it matches the checksum.
//   node scripts/pack-release.mjs [DIR]   (default release/; builds first, as `npm pack` does)

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

/** `<sha256 hex>  <file name>\n`, what `sha256sum` prints and `sha256sum -c` reads. */
export async function checksumLine(tarball) {
  const hash = createHash('sha256')
    .update(await readFile(tarball))
    .digest('hex');
  return `${hash}  ${basename(tarball)}\n`;
}

/**
 * Packs this checkout into `dir` and writes the tarball's checksum beside it; returns both paths.
 * `build: false` packs the dist/ already built (tests: the suite's global setup built it).
 */
export async function packRelease(dir, { build = true } = {}) {
  await mkdir(dir, { recursive: true });
  const args = ['pack', '--json', '--pack-destination', dir, ...(build ? [] : ['--ignore-scripts'])];
  const { stdout } = await run('npm', args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout);
  const tarball = join(dir, packed.filename);
  const checksum = `${tarball}.sha256`;
  await writeFile(checksum, await checksumLine(tarball));
  return { tarball, checksum };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { tarball, checksum } = await packRelease(resolve(process.argv[2] ?? join(root, 'release')));
  process.stdout.write(`${tarball}\n${checksum}\n`);
}
