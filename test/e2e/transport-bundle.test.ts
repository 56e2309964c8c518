// The pool as the bundled CLI will run it: built by esbuild with the CLI's banner and externals,
// loaded by plain node in a child process, reading a real peer. ssh2 and msgpackr are CommonJS
// loaded on demand, and a bundled chunk of CommonJS exports only `default`: from source this never shows.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the build script is plain ESM without types.
import { bundleModules } from '../../scripts/build.mjs';
import { ROOT } from '../helpers/cli.js';
import { type Peers, peerSupport, startPeers } from './peers/index.js';
import { run } from './peers/procs.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`transport-bundle: skipped: ${unsupported}`);

const PROBE = `
import { SshPool } from './pool.mjs';
const [ssh, host, ...remoteCommand] = process.argv.slice(2);
const pool = new SshPool({ ssh: { bin: ssh } });
try {
  const reply = await pool.exec({ host, remoteCommand }, ['echo', 'bundled']);
  process.stdout.write(JSON.stringify({ reply, state: pool.state({ host, remoteCommand }) }));
} finally {
  await pool.close();
}
`;

describe.skipIf(unsupported)('the pool from a bundle', () => {
  let peers: Peers;
  const outdir = join(ROOT, 'node_modules', '.cache', `dogsled-test-pool-bundle-${process.pid}`);

  beforeAll(async () => {
    peers = await startPeers([{ tag: 'bundle' }]);
    await mkdir(outdir, { recursive: true });
    await bundleModules({ pool: 'service/transport/pool.ts' }, outdir);
    await writeFile(join(outdir, 'probe.mjs'), PROBE);
  });

  afterAll(async () => {
    await peers?.stop();
    await rm(outdir, { recursive: true, force: true });
  });

  it('connects, verifies, authenticates and answers over its RPC channel', async () => {
    // run() rejects with the child's stderr on a non-zero exit.
    const stdout = await run([
      process.execPath,
      join(outdir, 'probe.mjs'),
      peers.client.ssh,
      'bundle',
      ...peers.remoteCommand,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({
      reply: { ok: true, value: { args: ['bundled'] } },
      state: { connected: true, failures: 0 },
    });
  });
});
