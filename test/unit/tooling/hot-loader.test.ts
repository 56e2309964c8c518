// cli/hot-loader.ts reads a bundle into one buffer that every read of a start-up shares (the
// dispatcher's source and cache, then its bundle's) and decodes it there inside Node's CommonJS
// wrapper. Bundles of different sizes loaded in turn, with and without their caches, each run as
// their own text says, non-ASCII text included (dash.cjs carries some), and their caches are used.

import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHot } from '../../../cli/hot-loader.js';
import { ROOT } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tree.js';

const root = await tempDir('dogsled-hot-loader-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dist = join(root, 'dist');
const env = { HOME: root, DOGSLED_STATE: join(root, 'state') };
mkdirSync(join(dist, 'hot'), { recursive: true });
mkdirSync(env.DOGSLED_STATE);
// The cache writer the loader imports from beside the entry: the built one.
writeFileSync(
  join(dist, 'code-cache-write.mjs'),
  `export * from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'code-cache-write.mjs')).href)};\n`,
);

/** A bundle whose run returns `answer` and the length of its own text; `padding` bytes of comment. */
function bundle(name: string, answer: string, padding: number): void {
  const body = [
    `// ${'x'.repeat(padding)}`,
    `const answer = ${JSON.stringify(answer)};`,
    'exports.run = async () => [answer, __filename.endsWith(".cjs"), typeof require, arguments.length];',
  ].join('\n');
  writeFileSync(join(dist, 'hot', `${name}.cjs`), `// dogsled-bundle ${name}0123456789abcdef\n${body}\n`);
}

describe('the hot loader', () => {
  it('loads bundles of any size in turn through one buffer, with and without their caches', async () => {
    const answers: Record<string, string> = {
      large: 'große Ölfässer ✓ — 日本語',
      small: 'plain',
      middle: 'ünïcödé in the middle',
      tiny: 'é',
    };
    bundle('large', answers.large ?? '', 600_000);
    bundle('small', answers.small ?? '', 10);
    bundle('middle', answers.middle ?? '', 90_000);
    bundle('tiny', answers.tiny ?? '', 0);
    const cacheOf = (name: string) =>
      join(env.DOGSLED_STATE, 'code-cache', `${name}-${`${name}0123456789abcdef`.slice(0, 16)}.bin`);
    const inodes = () => Object.keys(answers).map((name) => statSync(cacheOf(name)).ino);
    // Large, then smaller ones over what it left in the buffer, then large again; twice, the second
    // time from the caches the first wrote.
    let first: number[] = [];
    for (const round of [0, 1]) {
      for (const name of ['large', 'small', 'middle', 'large', 'tiny', 'middle']) {
        const hot = loadHot<() => Promise<unknown[]>>(dist, name, env);
        expect({ round, name, got: await hot.run() }).toEqual({
          round,
          name,
          got: [answers[name], true, 'function', 5],
        });
        await hot.remember(0);
      }
      if (round === 0) first = inodes();
    }
    // The second round replaced none: V8 took every cache the first round wrote (a cache refused or
    // rejected is written again, atomically, as a new file).
    expect(inodes()).toEqual(first);
    const large = readFileSync(cacheOf('large'));
    expect(large.subarray(0, large.indexOf(10)).toString()).toMatch(/^dogsled-code-cache 1 /);
  });
});
