// The dogsled MCP tools inside Pi, against the fake Pi host: the extension registers every tool of
// `dogsled mcp` as `mcp__dogsled__<name>` with the server's own description and JSON Schema, and a
// call answers what the server answers to a real MCP client; a refusal is a failed tool call (Pi's
// thrown error) carrying the server's one line, and a missing binary registers nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_PREFIX } from '../../../plugins/pi/src/mcp-tools.js';
import { calls, type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { type McpSession, startMcp } from '../../helpers/mcp-client.js';

// One sandbox and fake Herdr, one Pi session in `lead` and one MCP client of the server for the
// tests that compare the two: each session's start runs `dogsled mcp` (and a tool call one more), so
// the tests share what they only read. Each session logs to a file of its own.
let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
const runs: PiRun[] = [];
const sessions: McpSession[] = [];
const now = Date.now();
let started = 0;

beforeAll(async () => {
  t = await inboxBox();
  lead = await t.newPane();
  child = await t.newPane();
  await t.register(child);
});

afterAll(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
  for (const session of sessions.splice(0)) await session.close();
  await t?.close();
});

const clock = { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(now) };

async function pi(pane: PaneRef | undefined, env: NodeJS.ProcessEnv = {}): Promise<PiRun> {
  const run = await startPi(t, pane, { name: `pi-${++started}`, env: { ...clock, ...env } });
  runs.push(run);
  return run;
}

async function mcp(pane: PaneRef): Promise<McpSession> {
  const session = await startMcp(t.envOf(pane, clock));
  sessions.push(session);
  return session;
}

describe('the mcp__dogsled__* tools', () => {
  let run: PiRun;
  let server: McpSession;

  beforeAll(async () => {
    run = await pi(lead);
    server = await mcp(lead);
  });

  it("are the server's tools, with its descriptions and schemas, registered once per process", async () => {
    const { tools } = await server.client.listTools();
    expect([...run.fake.tools.keys()]).toEqual(tools.map((tool) => `${TOOL_PREFIX}${tool.name}`));
    expect([...run.fake.tools.keys()]).toContain('mcp__dogsled__spawn');
    for (const tool of tools) {
      const registered = run.fake.tools.get(`${TOOL_PREFIX}${tool.name}`);
      expect(registered?.description).toBe(tool.description);
      expect(registered?.parameters).toEqual(tool.inputSchema);
    }
    // The session's start listed them (one `dogsled mcp`); another start lists nothing again.
    const servers = async () => (await calls(run)).filter((args) => args === 'mcp').length;
    const before = await servers();
    expect(before).toBeGreaterThan(0);
    await run.fake.startSession();
    expect(await servers()).toBe(before);
  }, 60_000);

  it('answer as the server answers, owned by the pane Pi runs in; a refusal is a failed call', async () => {
    const status = await run.fake.callTool('mcp__dogsled__status', {});
    expect(status.isError).toBe(false);
    expect(JSON.parse(status.text)).toEqual(await server.json('status'));

    const sent = await run.fake.callTool('mcp__dogsled__send', {
      target: child.pane,
      message: 'from pi \u001b[31mred',
    });
    expect(sent).toMatchObject({ isError: false, text: expect.stringMatching(/^sent m_\w+ to /) });
    const listing = await mcp(child);
    const inbox = (await listing.json('inbox')) as {
      received: Array<{ text: string; sender: { pane: string } }>;
    };
    expect(inbox.received.map((r) => [r.text, r.sender.pane])).toEqual([['from pi red', lead.pane]]);

    for (const [name, args] of [
      ['mcp__dogsled__cancel', { ticket: 't_nope' }],
      ['mcp__dogsled__cancel', { ticket: 5 }],
      ['mcp__dogsled__read', { target: 'nobody\u001b]0;x\u0007' }],
    ] as const) {
      const mine = await run.fake.callTool(name, args);
      const theirs = await server.call(name.slice(TOOL_PREFIX.length), args);
      expect(mine).toEqual(theirs);
      expect(mine.isError).toBe(true);
      expect(mine.text).toMatch(/^dogsled: (cancel|read): /);
    }
  }, 60_000);
});

describe('without a pane or a binary', () => {
  it('are not registered outside a Herdr pane, nor without a usable binary', async () => {
    const outside = await pi(undefined);
    expect(outside.fake.tools.size).toBe(0);
    expect(await calls(outside)).toEqual(['--version']);
    const missing = await pi(lead, { DOGSLED_BIN: '/nonexistent/dogsled' });
    expect(missing.fake.tools.size).toBe(0);
  }, 60_000);
});
