import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../service/jobs/command-check.js';
import { findExecutable } from '../../../service/process/find-executable.js';
import { tempDir } from '../../helpers/tree.js';

async function layout() {
  const root = await tempDir();
  await mkdir(join(root, 'bin'));
  await mkdir(join(root, 'work', 'sub'), { recursive: true });
  await writeFile(join(root, 'bin', 'tool'), '#!/bin/sh\n');
  await chmod(join(root, 'bin', 'tool'), 0o755);
  await writeFile(join(root, 'bin', 'plain'), 'not executable\n');
  await writeFile(join(root, 'work', 'script.sh'), '#!/bin/sh\n');
  await chmod(join(root, 'work', 'script.sh'), 0o755);
  return root;
}

describe('the job command check', () => {
  it('finds a name on PATH and a path relative to the job directory', async () => {
    const root = await layout();
    const path = `/nonexistent:${join(root, 'bin')}`;
    expect(await findExecutable('tool', root, path)).toBe(join(root, 'bin', 'tool'));
    expect(await findExecutable('./script.sh', join(root, 'work'), path)).toBe(
      join(root, 'work', 'script.sh'),
    );
    expect(await findExecutable('../script.sh', join(root, 'work', 'sub'), '')).toBe(
      join(root, 'work', 'script.sh'),
    );
  });

  it('refuses files that are not executable, directories, and names missing from PATH', async () => {
    const root = await layout();
    const path = join(root, 'bin');
    expect(await findExecutable('plain', root, path)).toBeUndefined();
    expect(await findExecutable('bin', root, root)).toBeUndefined();
    expect(await findExecutable('missing', root, path)).toBeUndefined();
    expect(await findExecutable('', root, path)).toBeUndefined();
  });

  it('says command not found in one line', async () => {
    const root = await layout();
    await expect(checkCommand(['nope-xyz', 'arg'], root, { PATH: join(root, 'bin') })).rejects.toThrow(
      /^run: command not found: nope-xyz$/,
    );
    await expect(checkCommand(['tool'], root, { PATH: join(root, 'bin') })).resolves.toBeUndefined();
  });

  it('says why a path that is there cannot run: a directory, a file without its x bit', async () => {
    const root = await layout();
    const env = { PATH: join(root, 'bin') };
    await expect(checkCommand(['./bin'], root, env)).rejects.toThrow(
      /^run: command is a directory: \.\/bin$/,
    );
    await expect(checkCommand(['bin/plain'], root, env)).rejects.toThrow(
      /^run: command not executable: bin\/plain$/,
    );
    await expect(checkCommand(['./gone/tool'], root, env)).rejects.toThrow(
      /^run: command not found: \.\/gone\/tool$/,
    );
    // A name looked up on PATH is not found, as a shell says, even where a file of that name lacks its x bit.
    await expect(checkCommand(['plain'], root, env)).rejects.toThrow(/^run: command not found: plain$/);
  });
});
