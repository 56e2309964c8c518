// `dogsled mcp` warms its first status call once the client has initialized (cli/mcp/warm-up.ts):
// the warm-up starts no process, reaches no peer, writes and moves nothing and says nothing, and the
// first call still answers from the state as it is at the call. DOGSLED_TIMING=1 marks the warm-up's
// end on stderr, which is what these tests wait for.

import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, exited, type Sandbox, sandbox } from '../../helpers/cli.js';
import { INITIALIZE, type RawMcp, startRawMcp } from '../../helpers/mcp-raw.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
let server: RawMcp | undefined;

beforeEach(async () => {
  box = await sandbox({ DOGSLED_TIMING: '1' });
  await mkdir(box.state, { recursive: true, mode: 0o700 });
});

afterEach(async () => {
  await server?.end();
  server = undefined;
  await box.cleanup();
});

/** Starts the server, lists tools as a client does and waits for the warm-up's end. */
async function warmed(env = box.env): Promise<RawMcp> {
  server = await startRawMcp(env, box.root);
  await server.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: {} });
  await server.answer('list');
  await server.stderrSeen('mcp warm-up');
  return server;
}

async function status(session: RawMcp, id: string) {
  await session.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'status', arguments: {} } });
  const answer = await session.answer(id);
  return answer.result as { isError?: boolean; content: Array<{ text: string }> };
}

/**
 * Each file of the state dir with what a write or a move would change. The code cache is left out:
 * it is the bundle's compiled code, which the server writes once its start-up (the warm-up) is over,
 * as every hot command does after its first run, not state a read may not touch.
 */
async function listing(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name !== 'code-cache').sort();
  return Promise.all(
    names.map(async (name) => {
      const s = await stat(join(dir, name));
      return `${name} ${s.ino} ${s.size} ${s.mtimeMs}`;
    }),
  );
}

describe('the warm-up', () => {
  it('starts no process and reaches no peer; the first call then reads the fleet as ever', async () => {
    const bin = join(box.root, 'bin');
    const log = join(box.root, 'started.log');
    await mkdir(bin);
    for (const name of ['herdr', 'ssh']) {
      await writeFile(join(bin, name), `#!/bin/sh\necho "${name} $*" >> '${log}'\nexit 1\n`);
      await chmod(join(bin, name), 0o755);
    }
    await writeFile(box.configPath, '[[hosts]]\nid = "peer"\ntarget = "peer.example"\n');
    const session = await warmed({ ...box.env, PATH: `${bin}:${box.env.PATH}` });
    expect(session.stderr()).toContain('mcp warm-up done');
    await expect(readFile(log, 'utf8')).rejects.toThrow(/ENOENT/);
    const first = await status(session, 's1');
    expect(first.isError).toBeUndefined();
    const report = JSON.parse(first.content[0]?.text ?? '');
    expect(report.hosts.map((host: { id: string }) => host.id)).toEqual(['local', 'peer']);
    const started = await readFile(log, 'utf8');
    expect(started).toMatch(/^herdr machine list/m);
    expect(started).toMatch(/^ssh .*peer\.example/m);
  }, 60_000);

  it('writes, moves and locks nothing, and says nothing: a corrupt file is the call’s to move aside', async () => {
    await writeFile(join(box.state, 'queue.json'), '{"version":1,"tickets":[', { mode: 0o600 });
    const before = await listing(box.state);
    const session = await warmed();
    expect(session.stderr()).toContain('mcp warm-up: the status read failed');
    expect(await listing(box.state)).toEqual(before);
    expect(session.stderr().replace(/^timing .*\n/gm, '')).toBe('');
    const first = await status(session, 's1');
    expect(first.isError).toBeUndefined();
    expect(await readdir(box.state)).not.toContain('queue.json');
    expect(session.stderr()).toMatch(/queue\.json/);
  }, 60_000);

  it('keeps nothing for the call: a file written after it shows in the first answer', async () => {
    const session = await warmed();
    const sample = Date.now() - 1_000;
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: sample, cores: 8, busy: 0.25 }));
    const first = JSON.parse((await status(session, 's1')).content[0]?.text ?? '');
    expect(first.hosts[0].sample_ms).toBe(sample);
    const later = sample + 500;
    await writeSnapshot(box.state, snapshotFixture({ sample_ms: later, cores: 8, busy: 0.25 }));
    const second = JSON.parse((await status(session, 's2')).content[0]?.text ?? '');
    expect(second.hosts[0].sample_ms).toBe(later);
  }, 60_000);

  it('gives way to a call: one read with the handshake starts no round, and is answered', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { env: box.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    // One write well under PIPE_BUF: the server reads the three lines at once.
    const lines = [
      INITIALIZE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 's1', method: 'tools/call', params: { name: 'status', arguments: {} } },
    ];
    child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', () => {
        if (out.includes('"id":"s1"')) resolve();
      });
    });
    child.stdin.end();
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    const answer = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((message) => message.id === 's1');
    expect(answer.result.isError).toBeUndefined();
    expect(JSON.parse(answer.result.content[0].text).hosts[0].id).toBe('local');
    expect(err).toContain('mcp warm-up done (0 of 3 rounds)');
  }, 60_000);
});
