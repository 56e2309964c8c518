// The release assets of this checkout (scripts/pack-release.mjs): `npm pack` of the dist/ the
// suite's global setup built, and its checksum file, made once per test file.

import { join } from 'node:path';
// @ts-expect-error: the release script is plain ESM without types.
import { packRelease } from '../../scripts/pack-release.mjs';
import { tempDir } from './tree.js';

export interface PackedRelease {
  tarball: string;
  checksum: string;
}

let packed: Promise<PackedRelease> | undefined;

export function packedRelease(): Promise<PackedRelease> {
  packed ??= tempDir('dogsled-release-').then((dir) => packRelease(join(dir, 'release'), { build: false }));
  return packed;
}
