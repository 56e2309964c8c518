// A backlog meets Claude Code's cap on Stop blocks in a row (8 unless CLAUDE_CODE_STOP_HOOK_BLOCK_CAP
// says otherwise), on the built CLI with the fake Herdr: each block is as full as the size cap
// allows, the hook gives no block near the cap while stop_hook_active is true, and what is left
// arrives with the next prompts, every record once and in order. And a harness that never closes
// stdin does not cost a hook its budget.

import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../../helpers/cli.js';
import {
  hookJson,
  type InboxBox,
  inboxPair,
  type PaneRef,
  registerClaude,
} from '../../helpers/inbox-fixture.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

const STOP = ['inbox', '--harness', 'claude', '--event', 'Stop'];
const PROMPT = ['inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'];

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
  await registerClaude(t, child);
});

afterEach(async () => {
  await t.close();
});

/** `count` pending records of 1,900 characters, as `send` stores them, oldest first. */
async function backlog(count: number): Promise<void> {
  const inbox = await t.inbox(child);
  const now = Date.now();
  const records = Array.from({ length: count }, (_, i) => ({
    id: `m_back${String(i).padStart(6, '0')}`,
    kind: 'message',
    sender: { pane: lead.pane, terminal: lead.terminal, host: 'local', name: null },
    text: `record ${String(i).padStart(2, '0')}: ${'w'.repeat(1_888)}`,
    created_ms: now - 60_000 + i,
    state: 'pending',
    attempts: 0,
    lease_until_ms: null,
    delivered_ms: null,
    failed_ms: null,
    reason: null,
    ref: null,
  }));
  await writeFile(t.inboxPath(child), JSON.stringify({ ...inbox, records }));
}

const shown = (text: string) => [...text.matchAll(/record (\d\d): /g)].map((m) => Number(m[1]));

/** Stops as Claude Code runs them while each one blocks; the texts of the blocks, in order. */
async function stopChain(extra: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const reasons: string[] = [];
  for (let active = false; reasons.length <= 12; active = true) {
    const json = hookJson(
      await t.hook(child, STOP, { hook_event_name: 'Stop', stop_hook_active: active }, extra),
    );
    if (json === undefined) break;
    expect(json.decision).toBe('block');
    expect(json.reason.length).toBeLessThan(10_000);
    reasons.push(json.reason);
  }
  return reasons;
}

async function prompts(): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 0; i < 12; i++) {
    const json = hookJson(await t.hook(child, PROMPT, { hook_event_name: 'UserPromptSubmit', prompt: 'go' }));
    if (json === undefined) break;
    const context = json.hookSpecificOutput.additionalContext as string;
    expect(context.length).toBeLessThan(10_000);
    texts.push(context);
  }
  return texts;
}

describe('a backlog at Stop', () => {
  it('gives full blocks, none near the cap, and leaves the rest for the next prompts', async () => {
    await backlog(30);
    const blocks = await stopChain();
    // Six blocks of four: the default cap of 8 less two for other Stop hooks in the same chain.
    expect(blocks.map((text) => shown(text).length)).toEqual([4, 4, 4, 4, 4, 4]);
    const later = await prompts();
    expect(later.map((text) => shown(text).length)).toEqual([4, 2]);
    expect([...blocks, ...later].flatMap(shown)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect((await t.inbox(child)).records.every((r: { state: string }) => r.state === 'delivered')).toBe(
      true,
    );
  }, 90_000);

  it('follows CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, and a new chain starts counting again', async () => {
    await backlog(12);
    expect((await stopChain({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '3' })).map((text) => shown(text))).toEqual([
      [0, 1, 2, 3],
    ]);
    // The next turn's first Stop (stop_hook_active false) starts a new chain.
    expect((await stopChain({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '3' })).flatMap(shown)).toEqual([4, 5, 6, 7]);
    // 0 means no cap: the whole rest goes at Stop.
    expect((await stopChain({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '0' })).flatMap(shown)).toEqual([
      8, 9, 10, 11,
    ]);
  }, 90_000);
});

describe('stdin', () => {
  it('a harness that never closes stdin still gets its answer once the JSON object is whole', async () => {
    const id = (await t.cli(lead, ['send', child.pane, '--message', 'through an open stdin'])).stdout.split(
      ' ',
    )[1];
    const hook = spawn(process.execPath, [CLI, 'hook', ...STOP], {
      env: t.envOf(child),
      cwd: t.box.home,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    hook.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    hook.stdin.write(JSON.stringify({ hook_event_name: 'Stop', stop_hook_active: false }));
    const code = await new Promise((resolve) => hook.once('exit', resolve));
    hook.stdin.destroy();
    expect(code).toBe(0);
    expect(JSON.parse(stdout).reason).toContain('through an open stdin');
    expect((await t.inbox(child)).records).toEqual([expect.objectContaining({ id, state: 'delivered' })]);
  });
});
