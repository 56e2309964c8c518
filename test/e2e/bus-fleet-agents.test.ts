// The fleet bus, end to end (issue #28's "done when"): three services on one machine, each with its
// own state directory, home, host id and nkey user under the README's server configuration, with
// `[fleet] bus` set and no [[hosts]] and no SSH, see each other in `status --json` through the bus;
// a child started with `agent --host` on a bus-only peer (its own fake Herdr, the fake harness, its
// own `dogsled done`) reports back to its owner through the outbox stream: its final reply lands in
// the owner pane's inbox and the owner's item closes with it.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_AGENTS_BIN } from '../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../fakes/herdr/harness.js';
import {
  type BusHost,
  busStatus,
  busUser,
  readmeAuthorization,
  restartBusHost,
  startBusHost,
  stopBusHost,
  stopBusService,
  untilSeen,
} from '../helpers/bus-hosts.js';
import { CLI, runCli } from '../helpers/cli.js';
import { NatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/tree.js';
import { waitFor } from '../helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

const IDS = ['alpha', 'bravo', 'charlie'] as const;

let nats: NatsServer;
const hosts: BusHost[] = [];
let ownerHerdr: FakeHerdr;
let childHerdr: FakeHerdr;
let owner: { pane: string; terminal: string };
let scratch: string;
/** Where this build's `dogsled` is on PATH, for the caller and the child alike. */
let shimBin: string;

/** A `dogsled` on PATH that runs this build, for the child's own `dogsled done`. */
async function dogsledShim(dir: string): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'dogsled'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  await chmod(join(bin, 'dogsled'), 0o755);
  return bin;
}

/**
 * The owner's pane, as its caller: its Herdr, and a PATH with the harness the child runs and this
 * build's dogsled (a child on a peer runs with its caller's PATH).
 */
function ownerEnv(): NodeJS.ProcessEnv {
  const [alpha] = hosts as [BusHost];
  return {
    ...alpha.box.env,
    HERDR_SOCKET_PATH: ownerHerdr.socketPath,
    HERDR_ENV: '1',
    HERDR_PANE_ID: owner.pane,
    PATH: `${shimBin}:${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}`,
  };
}

function doneTask(reply: string): string {
  const steps = [{ reply: 'Starting.' }, { sleep_ms: 300 }, { run: 'dogsled done' }, { reply }];
  return `Finish the unit.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`;
}

beforeAll(async () => {
  const users = IDS.map((id) => busUser(id));
  nats = await NatsServer.start(await readmeAuthorization(users));
  scratch = await tempDir('dogsled-bus-work-');
  for (const user of users) hosts.push(await startBusHost(user.id, nats.url, { user }));
  const [alpha, bravo] = hosts as [BusHost, BusHost];

  // The owner's Herdr, with the owner's pane; the owner's service finds it as one started there does.
  ownerHerdr = await startFakeHerdr({ dir: join(alpha.box.root, 'herdr') });
  const made = (await ownerHerdr.call('workspace.create', { cwd: alpha.box.home })).result as Json;
  owner = { pane: made.root_pane.pane_id, terminal: made.root_pane.terminal_id };
  alpha.env = { ...alpha.env, HERDR_SOCKET_PATH: ownerHerdr.socketPath, HERDR_ENV: '1' };

  // The peer's Herdr: its panes run the fake harness and this build's dogsled against its state.
  shimBin = await dogsledShim(scratch);
  const bin = shimBin;
  childHerdr = await startFakeHerdr({
    dir: join(bravo.box.root, 'herdr'),
    env: {
      HOME: bravo.box.home,
      PATH: `${bin}:${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}`,
      FAKE_AGENT_LOG_DIR: join(bravo.box.root, 'agent-log'),
      DOGSLED_STATE: bravo.box.state,
      DOGSLED_TEST: '1',
    },
  });
  bravo.env = {
    ...bravo.env,
    HERDR_SOCKET_PATH: childHerdr.socketPath,
    HERDR_ENV: '1',
    PATH: childHerdr.env.PATH,
  };
  for (const host of [alpha, bravo]) {
    await stopBusService(host);
    restartBusHost(host);
  }
});

afterAll(async () => {
  await Promise.all(hosts.map(stopBusHost));
  await ownerHerdr?.stop();
  await childHerdr?.stop();
  await nats?.stop();
});

describe('the fleet bus, end to end', { timeout: 120_000 }, () => {
  it('three services see each other in status --json through the bus, with no [[hosts]] and no SSH', async () => {
    for (const host of hosts) {
      const others = hosts.filter((h) => h !== host).map((h) => h.id);
      await untilSeen(host, others, { eligible: true });
      const report = await busStatus(host);
      expect(report.hosts.map((h: Json) => h.id).sort()).toEqual(['local', ...others].sort());
      expect(await readFile(host.box.configPath, 'utf8')).not.toContain('[[hosts]]');
    }
  });

  it('a child started with agent --host on a bus-only peer reports back to its owner through the stream', async () => {
    const [alpha, bravo] = hosts as [BusHost, BusHost];
    const started = await runCli(
      [
        'agent',
        '--host',
        'bravo',
        '--kind',
        'claude',
        '--name',
        'far-kid',
        '--cwd',
        scratch,
        '--json',
        '--message',
        doneTask('Finished far away: all green.'),
      ],
      ownerEnv(),
      { timeoutMs: 90_000, cwd: scratch },
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(started.stdout);
    expect(doc).toMatchObject({ host: 'bravo' });
    // The child runs in the peer's Herdr, not the owner's.
    const panes = (await childHerdr.call('pane.list')).result as Json;
    expect(panes.panes.map((p: Json) => p.pane_id)).toContain(doc.pane);

    const inboxFile = join(alpha.box.state, 'inbox', `${owner.terminal}.json`);
    const reply = await waitFor(
      "the child's reply in the owner's inbox",
      async () => {
        const records = JSON.parse(await readFile(inboxFile, 'utf8')).records as Json[];
        return records.find((r) => r.ref === `reply:${doc.item}`);
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(reply).toMatchObject({
      kind: 'reply',
      sender: expect.objectContaining({ host: 'bravo', name: 'far-kid' }),
    });
    expect(reply.text).toContain('far-kid finished');
    expect(reply.text).toContain('Finished far away: all green.');
    const item = await waitFor('the owner item closed', async () => {
      const items = JSON.parse(await readFile(join(alpha.box.state, 'items.json'), 'utf8')).items as Json[];
      return items.find((i) => i.id === doc.item && i.closed_ms !== null);
    });
    expect(item).toMatchObject({
      host: 'bravo',
      close_reason: 'done',
      reply: 'Finished far away: all green.',
    });
    // Nothing waits in the peer's outbox: it went through the stream, not an SSH pull.
    const outbox = JSON.parse(await readFile(join(bravo.box.state, 'outbox.json'), 'utf8')).records;
    expect(outbox).toEqual([]);
  });

  it('send finds a child on the bus peer by name, read shows it, close ends it there and here', async () => {
    const [alpha, bravo] = hosts as [BusHost, BusHost];
    const cli = (args: string[]) => runCli(args, ownerEnv(), { timeoutMs: 90_000, cwd: scratch });
    const task = `Wait.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps: [{ reply: 'Ready and waiting.' }] })}\n\`\`\`\n`;
    const started = await cli([
      'agent',
      '--host',
      'bravo',
      '--kind',
      'claude',
      '--name',
      'near-kid',
      '--cwd',
      scratch,
      '--json',
      '--message',
      task,
    ]);
    expect(started.code, started.stderr).toBe(0);
    const doc = JSON.parse(started.stdout);
    // Its harness's first `hook inbox` registers its reader there, in its pane's name.
    const hook = await runCli(
      ['hook', 'inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'],
      { ...bravo.box.env, HERDR_SOCKET_PATH: childHerdr.socketPath, HERDR_ENV: '1', HERDR_PANE_ID: doc.pane },
      { input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'go' }), cwd: scratch },
    );
    expect(hook.code, hook.stderr).toBe(0);
    // Without --host: the name is looked up on every host, bravo's over the bus.
    const sent = await cli(['send', 'near-kid', '--message', 'Also $(id) \u001b[31mthis']);
    expect(sent.code, sent.stderr).toBe(0);
    const terminal = ((await childHerdr.call('pane.get', { pane_id: doc.pane })).result as Json).pane
      .terminal_id;
    const there = JSON.parse(
      await readFile(join(bravo.box.state, 'inbox', `${terminal}.json`), 'utf8'),
    ).records;
    expect(there.map((r: Json) => r.text)).toContain('Also $(id) \u001b[31mthis');
    // Its screen, read on bravo (the item names the host), over the bus.
    const read = await waitFor('its answer on its screen', async () => {
      const shown = await cli(['read', 'near-kid', '--json']);
      if (shown.code !== 0) throw new Error(shown.stderr);
      const report = JSON.parse(shown.stdout);
      return String(report.output).includes('Ready and waiting.') ? report : undefined;
    });
    expect(read).toMatchObject({ host: 'bravo', kind: 'agent', pane: doc.pane });
    const closed = await cli(['close', doc.pane, '--host', 'bravo', '--json']);
    expect(closed.code, closed.stderr).toBe(0);
    expect(JSON.parse(closed.stdout)).toMatchObject({ pane: doc.pane, pane_closed: true });
    const left = (await childHerdr.call('pane.list')).result as Json;
    expect(left.panes.map((p: Json) => p.pane_id)).not.toContain(doc.pane);
    const items = JSON.parse(await readFile(join(alpha.box.state, 'items.json'), 'utf8')).items as Json[];
    expect(items.find((i) => i.id === doc.item)).toMatchObject({
      closed_ms: expect.any(Number),
      close_reason: 'closed',
    });
  });
});
