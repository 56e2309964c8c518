// `dogsled mcp` runs from a bundle of its own (dist/hot/mcp.cjs) with the MCP SDK and its zod inside
// it, compiled with V8's code cache: a harness starts a server for every session and waits for its
// `initialize` answer. These tests run a copy of dist/ where no node_modules can be found, so a
// module left outside the bundle fails the start instead of being read from the checkout.

import { cp, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import { type RawMcp, startRawMcp } from '../../helpers/mcp-raw.js';

let box: Sandbox;
let server: RawMcp | undefined;

beforeEach(async () => {
  box = await sandbox({ DOGSLED_TIMING: '1' });
  // The code cache is kept in the state dir, and a command makes none where there is none.
  await mkdir(box.state, { recursive: true, mode: 0o700 });
});

afterEach(async () => {
  await server?.end();
  server = undefined;
  await box.cleanup();
});

/** dist/ copied into the sandbox, far from the checkout's node_modules. */
async function lonelyDist(): Promise<string> {
  const dist = join(box.root, 'dist');
  await cp(join(CLI, '..'), dist, { recursive: true });
  return join(dist, 'dogsled.cjs');
}

/** One session (startRawMcp initializes it), a status call; what its stderr said. */
async function session(cli: string): Promise<string> {
  server = await startRawMcp(box.env, box.root, cli);
  expect((await server.answer('init')).result.serverInfo.name).toBe('dogsled');
  await server.send({
    jsonrpc: '2.0',
    id: 's',
    method: 'tools/call',
    params: { name: 'status', arguments: {} },
  });
  const status = await server.answer('s');
  expect(status.result.isError).toBeUndefined();
  expect(status.result.content[0].text).toContain('local');
  const ended = await server.end();
  expect(ended.code).toBe(0);
  const stderr = server.stderr();
  server = undefined;
  return stderr;
}

describe('the mcp bundle', () => {
  it('answers with no node_modules in reach, from its own bundle', async () => {
    const stderr = await session(await lonelyDist());
    expect(stderr).toMatch(/^timing .* compiled \(code cache: absent\) mcp$/m);
    expect(stderr).not.toMatch(/Cannot find (module|package)/);
  }, 60_000);

  it('writes its code cache once started and uses it the next time', async () => {
    const cli = await lonelyDist();
    const first = await session(cli);
    expect(first).toMatch(/^timing .* code cache written mcp$/m);
    const cached = (await readdir(join(box.state, 'code-cache'))).filter((name) => name.startsWith('mcp-'));
    expect(cached).toHaveLength(1);
    const second = await session(cli);
    expect(second).toMatch(/^timing .* compiled \(code cache: used\) mcp$/m);
    expect(second).not.toMatch(/code cache written mcp$/m);
  }, 60_000);
});
