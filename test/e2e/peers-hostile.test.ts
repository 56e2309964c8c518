// A hostile peer over a real sshd: its remote_command runs a program of its own that answers every
// verb with whatever snapshot the test hands it, one-shot (`host snapshot`) and as a `host rpc`
// server speaking real frames. Its strings carry escapes, bidi overrides and zero-width characters:
// what this host caches and shows is clean. Its snapshot over the 8 MiB bound is refused as
// `remote command failed` by `status`/`retry` (OpenSSH), by the service's pool, and by a `status`
// that reads it through this host's service, never cached, and the last good snapshot stays.

import { chmod, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../service/hosts/view-schemas.js';
import { exited, ROOT, runCli, type Sandbox, sandbox, startCli } from '../helpers/cli.js';
import { hostileReply, tainted } from '../helpers/hostile-snapshot.js';
import { itemFixture } from '../helpers/job-fixtures.js';
import { readableCopy } from '../helpers/readable-copy.js';
import { waitFor } from '../helpers/wait.js';
import { appendItems } from '../integration/jobs/job-queue-fixtures.js';
import { acceptedConnections } from './peers/fleet.js';
import { type Peers, peerSupport, startPeers } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-hostile: skipped: ${unsupported}`);

/** The peer's dogsled: every verb answers reply.json, as JSON on stdout or as an rpc frame. */
const HOSTILE_PEER = `
const fs = require('node:fs');
const path = require('node:path');
const [, , packrPath, , verb] = process.argv;
const reply = () => fs.readFileSync(path.join(__dirname, 'reply.json'), 'utf8');
if (verb === 'rpc') {
  const { Packr } = require(packrPath);
  const packr = new Packr({ useRecords: false, moreTypes: false, mapsAsObjects: true });
  const frame = (value) => {
    const body = packr.pack(value);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    return Buffer.concat([head, body]);
  };
  process.stdout.write(frame({ t: 'hello', wire: 1, version: 'hostile', verbs: ['snapshot'] }));
  let buffered = Buffer.alloc(0);
  process.stdin.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
      const length = buffered.readUInt32BE(0);
      const request = packr.unpack(buffered.subarray(4, 4 + length));
      buffered = buffered.subarray(4 + length);
      const value = JSON.parse(reply());
      process.stdout.write(frame({ t: 'res', id: request.id, ok: true, value, code: 0 }));
    }
  });
  process.stdin.on('end', () => process.exit(0));
} else {
  process.stdout.write(reply());
}
`;

describe.skipIf(unsupported)('a hostile peer', () => {
  let peers: Peers;
  let box: Sandbox;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const entryPath = () => join(box.state, 'peers', 'evil.json');
  const answer = (reply: unknown) =>
    writeFile(join(dir, 'reply.json'), JSON.stringify(reply), { mode: 0o644 });
  /** A snapshot over the 8 MiB bound: a valid one, with 12 MiB in a field of its own. */
  const oversize = () => ({ ...hostileReply(Date.now()), pad: 'x'.repeat(12 * 1024 * 1024) });
  const status = async () => {
    const result = await runCli(['status', '--json'], env, { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    return StatusReportSchema.parse(JSON.parse(result.stdout)).hosts[1];
  };

  beforeAll(async () => {
    peers = await startPeers([{ tag: 'evil' }]);
    box = await sandbox();
    dir = join(peers.root, 'hostile');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'dogsled.cjs'), HOSTILE_PEER, { mode: 0o644 });
    // The peer's user loads its own copy: it may not read the checkout's node_modules.
    const packr = await readableCopy(join(ROOT, 'node_modules', 'msgpackr'), join(dir, 'msgpackr'));
    const remote = [process.execPath, join(dir, 'dogsled.cjs'), packr];
    await writeFile(
      box.configPath,
      `remote_command = ${JSON.stringify(remote)}\n\n[[hosts]]\nid = "evil"\ntarget = "evil"\n`,
    );
    const bin = join(box.root, 'bin');
    await mkdir(bin);
    await symlink(peers.client.ssh, join(bin, 'ssh'));
    env = {
      ...box.env,
      PATH: `${bin}:${box.env.PATH}`,
      DOGSLED_TEST: '1',
      DOGSLED_TEST_PEER_BUDGET_MS: '8000',
    };
  });

  afterAll(async () => {
    await peers?.stop();
    await box?.cleanup();
  });

  it('is cached and shown with every string cleaned', async () => {
    await answer(hostileReply(Date.now()));
    const evil = await status();
    expect(evil).toMatchObject({ reachable: true, probe: { disk: { path: '/srv/evil' } } });
    expect(tainted(evil)).toEqual([]);
    // The cache itself holds clean text: the sidebar, the board and MCP read it from there.
    expect(tainted(JSON.parse(await readFile(entryPath(), 'utf8')))).toEqual([]);
    const human = await runCli(['status'], env);
    expect(human.stdout).toContain('/srv/evil');
    expect(tainted(human.stdout.split('\n'))).toEqual([]);
  });

  it('is refused over the size bound as remote command failed, its last good snapshot kept', async () => {
    await answer(oversize());
    const retried = await runCli(['retry', 'evil'], env, { timeoutMs: 30_000 });
    expect(retried.stderr).toMatch(
      /^dogsled: retry: evil: unreachable: remote command failed \(next read in \d+s\)\n$/,
    );
    expect(retried.code).toBe(2);
    const evil = await status();
    expect(evil).toMatchObject({
      reachable: false,
      unreachable: 'remote command failed',
      probe: { disk: { path: '/srv/evil' } },
    });
    expect((await stat(entryPath())).size).toBeLessThan(64 * 1024);
  });

  it("is cleaned and bounded the same when a command reads it through this host's service", async () => {
    await answer(hostileReply(Date.now()));
    await rm(join(box.state, 'peers'), { recursive: true, force: true });
    const serve = startCli(['serve', '--interval', '1'], env);
    try {
      await waitFor(
        'peer-read.sock',
        async () =>
          (await stat(join(box.state, 'peer-read.sock')).catch(() => undefined))?.isSocket()
            ? true
            : undefined,
        { timeoutMs: 30_000 },
      );
      // The first read opens the service's pooled connection; the next travels on it.
      await status();
      await rm(join(box.state, 'peers'), { recursive: true, force: true });
      const before = await acceptedConnections(peers, 'evil');
      const evil = await status();
      expect(await acceptedConnections(peers, 'evil')).toBe(before);
      expect(evil).toMatchObject({ reachable: true, probe: { disk: { path: '/srv/evil' } } });
      expect(tainted(evil)).toEqual([]);
      expect(tainted(JSON.parse(await readFile(entryPath(), 'utf8')))).toEqual([]);
      await answer(oversize());
      await rm(join(box.state, 'peers'), { recursive: true, force: true });
      expect(await status()).toMatchObject({ reachable: false, unreachable: 'remote command failed' });
      expect((await stat(entryPath())).size).toBeLessThan(64 * 1024);
    } finally {
      serve.kill('SIGTERM');
      expect(await exited(serve)).toEqual({ code: 0, signal: null });
    }
  });

  it("is refused over the size bound by the service's pool too, and never cached", async () => {
    await answer(oversize());
    await rm(join(box.state, 'peers'), { recursive: true, force: true });
    // An open item here: the service keeps its peers read, over its pool.
    await appendItems(box, [itemFixture({ id: 'i_hostile01', host: 'local', job: null })]);
    const serve = startCli(['serve', '--interval', '1'], env);
    try {
      const entry = await waitFor(
        "the service's read of evil",
        async () => {
          const text = await readFile(entryPath(), 'utf8').catch(() => '');
          return text === '' ? undefined : JSON.parse(text);
        },
        { timeoutMs: 30_000 },
      );
      expect(entry).toMatchObject({ unreachable: 'remote command failed', reply: null });
      expect((await stat(entryPath())).size).toBeLessThan(64 * 1024);
    } finally {
      serve.kill('SIGTERM');
      expect(await exited(serve)).toEqual({ code: 0, signal: null });
    }
    expect(serve.output()).not.toMatch(/error|evil/i);
  });
});
