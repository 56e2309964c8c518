// A release's two assets: the npm package tarball (`npm pack`: dist/, the plugins, profiles,
// service units and the Herdr plugin's manifest and fetch step) and its checksum file in
// sha256sum's format, `<hex>  dogsled-X.Y.Z.tgz`. Attach both to the GitHub release vX.Y.Z:
// plugin/fetch.sh downloads the tarball from there and refuses it unless it matches the checksum.
// The tarball's package.json has no scripts: a checkout's `prepare` (its build) means nothing in an
// installed package, and npm 11 would list it among the install scripts a user must allow.
//   node scripts/pack-release.mjs [DIR]   (default release/; builds first, as `npm pack` does)

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
  if (build) await run('npm', ['run', 'build'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const stage = await mkdtemp(join(tmpdir(), 'dogsled-pack-'));
  try {
    await stagePackage(stage);
    const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', resolve(dir)];
    const { stdout } = await run('npm', args, { cwd: stage, maxBuffer: 64 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout);
    const tarball = join(dir, packed.filename);
    const checksum = `${tarball}.sha256`;
    await writeFile(checksum, await checksumLine(tarball));
    return { tarball, checksum };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Copies what `npm pack` would pack from this checkout into `stage`, its package.json without scripts. */
async function stagePackage(stage) {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [listed] = JSON.parse(stdout);
  for (const { path } of listed.files) {
    const from = join(root, path);
    const to = join(stage, path);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    await chmod(to, (await stat(from)).mode & 0o777);
  }
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  delete manifest.scripts;
  delete manifest.devDependencies;
  await writeFile(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { tarball, checksum } = await packRelease(resolve(process.argv[2] ?? join(root, 'release')));
  process.stdout.write(`${tarball}\n${checksum}\n`);
}
