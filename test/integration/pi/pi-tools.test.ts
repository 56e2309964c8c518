// The dogsled MCP tools inside Pi, against the fake Pi host: the extension registers every tool of
// `dogsled mcp` as `mcp__dogsled__<name>` with the server's own description and JSON Schema, and a
// call answers what the server answers to a real MCP client; a refusal is a failed tool call (Pi's
// thrown error) carrying the server's one line, and a missing binary registers nothing.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_PREFIX } from '../../../plugins/pi/src/mcp-tools.js';
import { calls, type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import { type McpSession, startMcp } from '../../helpers/mcp-client.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
const runs: PiRun[] = [];
const sessions: McpSession[] = [];
const now = Date.now();

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
  await registerClaude(t, child);
});

afterEach(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
  for (const session of sessions.splice(0)) await session.close();
  await t.close();
});

const clock = { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(now) };

async function pi(pane: PaneRef | undefined, env: NodeJS.ProcessEnv = {}): Promise<PiRun> {
  const run = await startPi(t, pane, { env: { ...clock, ...env } });
  runs.push(run);
  return run;
}

describe('the mcp__dogsled__* tools', () => {
  it("are the server's tools, with its descriptions and schemas, registered once per process", async () => {
    const run = await pi(lead);
    const server = await startMcp(t.envOf(lead, clock));
    sessions.push(server);
    const { tools } = await server.client.listTools();
    expect([...run.fake.tools.keys()]).toEqual(tools.map((tool) => `${TOOL_PREFIX}${tool.name}`));
    expect([...run.fake.tools.keys()]).toContain('mcp__dogsled__spawn');
    for (const tool of tools) {
      const registered = run.fake.tools.get(`${TOOL_PREFIX}${tool.name}`);
      expect(registered?.description).toBe(tool.description);
      expect(registered?.parameters).toEqual(tool.inputSchema);
    }
    await run.fake.startSession();
    expect((await calls(run)).filter((args) => args === 'mcp')).toHaveLength(1);
  }, 60_000);

  it('answer as the server answers, owned by the pane Pi runs in; a refusal is a failed call', async () => {
    const run = await pi(lead);
    const server = await startMcp(t.envOf(lead, clock));
    sessions.push(server);
    const status = await run.fake.callTool('mcp__dogsled__status', {});
    expect(status.isError).toBe(false);
    expect(JSON.parse(status.text)).toEqual(await server.json('status'));

    const sent = await run.fake.callTool('mcp__dogsled__send', {
      target: child.pane,
      message: 'from pi \u001b[31mred',
    });
    expect(sent).toMatchObject({ isError: false, text: expect.stringMatching(/^sent m_\w+ to /) });
    const listing = await startMcp(t.envOf(child, clock));
    sessions.push(listing);
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

  it('are not registered outside a Herdr pane, nor without a usable binary', async () => {
    const outside = await pi(undefined);
    expect(outside.fake.tools.size).toBe(0);
    expect(await calls(outside)).toEqual(['--version']);
    const missing = await pi(lead, { DOGSLED_BIN: '/nonexistent/dogsled' });
    expect(missing.fake.tools.size).toBe(0);
  }, 60_000);
});
