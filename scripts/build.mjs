// Bundles the CLI into dist/ with esbuild. Commands are split into lazily loaded chunks so a
// command that hooks call often (status --line) never parses the code of the others.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// CJS dependencies (commander, proper-lockfile) expect these names in an ESM bundle.
export const BUNDLE_BANNER = [
  "import { createRequire as __dogsledCreateRequire } from 'node:module';",
  "import { fileURLToPath as __dogsledFileURLToPath } from 'node:url';",
  "import { dirname as __dogsledDirname } from 'node:path';",
  'const require = __dogsledCreateRequire(import.meta.url);',
  'const __filename = __dogsledFileURLToPath(import.meta.url);',
  'const __dirname = __dogsledDirname(__filename);',
].join('\n');

export async function buildCli(outdir = join(root, 'dist')) {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  await rm(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { dogsled: 'cli/main.ts' },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: BUNDLE_BANNER },
    define: { __DOGSLED_VERSION__: JSON.stringify(pkg.version) },
    // blessed loads its widgets with dynamic requires and cannot be bundled.
    external: ['blessed', 'blessed-contrib', 'cpu-features', '*.node'],
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  return join(outdir, 'dogsled.mjs');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
