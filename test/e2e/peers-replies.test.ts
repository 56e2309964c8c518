import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../fakes/herdr/harness.js';
import { exited, runCli, startCli } from '../helpers/cli.js';
import { registerPeerReader } from '../helpers/peer-inbox.js';
import { waitFor } from '../helpers/wait.js';
import { callerCheckout } from './peers/checkout.js';
import { type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { type PeerHerdr, startPeerHerdr } from './peers/herdr.js';
import { peerSupport } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-replies: skipped: ${unsupported}`);

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

function task(steps: unknown[]): string {
  return `Work.\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`;
}

/** The owner's workspace name: a peer opens (or makes) the one so named, never splicing it. */
const LEAD_WORKSPACE = "lead's $(ws) `x`";

const COMMIT =
  "echo work > work.txt && git add work.txt && git -c user.name=C -c user.email=c@example.com commit -qm 'child work'";

describe.skipIf(unsupported)('a child on a peer, seen from its owner', { timeout: 240_000 }, () => {
  let fleet: Fleet;
  let peerHerdr: PeerHerdr;
  let local: FakeHerdr;
  let env: NodeJS.ProcessEnv;
  let serveEnv: NodeJS.ProcessEnv;
  let owner: { pane: string; terminal: string };
  let checkout: string;
  let serve: ReturnType<typeof startCli> | undefined;
  /** The running service was started to die after its first write (the crash case's). */
  let serveCrashes = false;
  const peerState = () => join(fleet.peers.peer('big').user.home, '.local', 'state', 'dogsled');
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCli(args, { ...env, ...extra }, { timeoutMs: 90_000 });
  const ownerItem = async (id: string): Promise<Json> =>
    JSON.parse(await readFile(join(fleet.box.state, 'items.json'), 'utf8')).items.find(
      (item: Json) => item.id === id,
    );
  const ownerRecords = async (): Promise<Json[]> => {
    const text = await readFile(join(fleet.box.state, 'inbox', `${owner.terminal}.json`), 'utf8').catch(
      () => null,
    );
    return text === null ? [] : JSON.parse(text).records;
  };
  const outbox = async (): Promise<Json[]> => {
    const text = await readFile(join(peerState(), 'outbox.json'), 'utf8').catch(() => null);
    return text === null ? [] : JSON.parse(text).records;
  };
  const startOwnerServe = (extra: NodeJS.ProcessEnv = {}) => {
    serve = startCli(['serve', '--interval', '1'], { ...serveEnv, ...extra });
    serveCrashes = extra.DOGSLED_TEST_OUTBOX_CRASH !== undefined;
    return serve;
  };
  const stopOwnerServe = async () => {
    if (serve && serve.exitCode === null && serve.signalCode === null) {
      serve.kill('SIGKILL');
      await exited(serve);
    }
  };
  const launch = async (name: string, steps: unknown[], more: string[] = []): Promise<Json> => {
    const result = await cli([
      'agent',
      '--host',
      'big',
      '--kind',
      'claude',
      '--name',
      name,
      '--json',
      ...more,
      '--message',
      task(steps),
    ]);
    // On a failed launch, what the peer recorded of its tries says why (the CLI gives the last only).
    const tries = result.code === 0 ? '' : await peerLaunchErrors();
    expect({ code: result.code, stderr: result.stderr, tries }).toEqual({ code: 0, stderr: '', tries: '' });
    return JSON.parse(result.stdout);
  };
  const peerLaunchErrors = async (): Promise<string> => {
    const dir = join(peerState(), 'launches');
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));
    const records = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8').catch(() => '')));
    return records.join('\n');
  };

  /** The child's harness registers its inbox reader there (its hook, run in its pane's name). */
  const registerReader = (pane: string) =>
    registerPeerReader(fleet.peers.peer('big'), peerHerdr.socketPath, fleet.peers.remoteCommand, pane);

  beforeAll(async () => {
    fleet = await startFleet([{ tag: 'big', cores: 16 }]);
    const peer = fleet.peers.peer('big');
    await peer.writeHomeFile('.gitconfig', '[safe]\n\tdirectory = *\n');
    // The children's own `dogsled done` runs the peers' build (~/bin is on their callers' PATH).
    const [node, bundle] = fleet.peers.remoteCommand as [string, string];
    const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
    await peer.writeHomeFile('bin/dogsled', `#!/bin/sh\nexec ${quote(node)} ${quote(bundle)} "$@"\n`);
    await peer.run(['chmod', '755', join(peer.user.home, 'bin', 'dogsled')]);
    peerHerdr = await startPeerHerdr(peer, { binFirst: join(peer.user.home, 'bin') });
    local = await startFakeHerdr({ dir: join(fleet.box.root, 'herdr') });
    const created = (await local.call('workspace.create', { cwd: fleet.box.home, label: LEAD_WORKSPACE }))
      .result as Json;
    owner = { pane: created.root_pane.pane_id, terminal: created.root_pane.terminal_id };
    // The children run with their caller's PATH, its home mapped to the peer's: ~/bin there holds
    // their `dogsled`.
    const base = {
      ...fleet.env,
      HERDR_SOCKET_PATH: local.socketPath,
      HERDR_ENV: '1',
      PATH: `${join(fleet.box.home, 'bin')}:${local.binDir}:${fleet.env.PATH}`,
    };
    env = { ...base, HERDR_PANE_ID: owner.pane };
    // Records taken by a service that died come again after 3 s instead of a minute; the peers lane
    // takes the outbox every half second instead of every 10 s (peer reads keep their spacing).
    serveEnv = { ...base, DOGSLED_TEST_OUTBOX_LEASE_MS: '3000', DOGSLED_TEST_PEERS_PACE_MS: '500' };
    ({ checkout } = await callerCheckout(fleet, 'proj'));
    await untilPeersEligible(fleet);
    startOwnerServe();
  });

  afterAll(async () => {
    await stopOwnerServe();
    await peerHerdr?.stop();
    await local?.stop();
    await fleet?.stop();
  });

  // First in the file: this host owns nothing on the peer yet, so only the send makes it look there.
  it('tells a sender here that a child the peer started itself finished, this host owning nothing there', async () => {
    const made = (await local.call('workspace.create', { cwd: fleet.box.home, label: 'far sender' }))
      .result as Json;
    const sender = { pane: made.root_pane.pane_id, terminal: made.root_pane.terminal_id };
    const peer = fleet.peers.peer('big');
    const go = join(peer.user.home, 'go-own');
    const [node, bundle] = fleet.peers.remoteCommand as [string, string];
    // As a caller in one of the peer's Herdr panes: its PATH finds the harness the child runs.
    const herdrEnv = [
      'env',
      'HERDR_ENV=1',
      `HERDR_SOCKET_PATH=${peerHerdr.socketPath}`,
      `PATH=${peerHerdr.path}`,
    ];
    // Its first turn ends at once: a child is ready (its start confirmed) at its first idle, and one
    // that worked from its launch prompt until the go would hold the start for Herdr's 30 s wait.
    const steps = [
      { reply: 'On it.' },
      { run: `while [ ! -e '${go}' ]; do sleep 0.2; done` },
      { run: 'dogsled done' },
      { reply: 'Mine.' },
    ];
    const started = JSON.parse(
      await peer.run([
        ...herdrEnv,
        node,
        bundle,
        'agent',
        '--kind',
        'claude',
        '--name',
        'own-child',
        '--cwd',
        '/tmp',
        '--json',
        '--message',
        task(steps),
      ]),
    );
    await registerReader(started.pane);
    expect(
      JSON.parse(await readFile(join(fleet.box.state, 'items.json'), 'utf8').catch(() => '{"items":[]}'))
        .items,
    ).toEqual([]);
    const sent = await cli(['send', started.pane, '--host', 'big', '--message', 'Also this.'], {
      HERDR_PANE_ID: sender.pane,
    });
    expect(sent.code, sent.stderr).toBe(0);
    await peer.run(['touch', go]);
    const text = async () =>
      readFile(join(fleet.box.state, 'inbox', `${sender.terminal}.json`), 'utf8').catch(() => '');
    const notice = await waitFor(
      "the sender's finished notice",
      async () =>
        (JSON.parse((await text()) || '{"records":[]}').records as Json[]).find(
          (r) => r.ref === `finished:${started.item}`,
        ),
      { timeoutMs: 90_000 },
    );
    expect(notice).toMatchObject({
      kind: 'reply',
      sender: expect.objectContaining({ host: 'big', name: 'own-child' }),
    });
    expect(notice.text).toBe('own-child finished; start a new child for more work.');
  });

  it("delivers the child's final reply to the owner's inbox, closes the owner's item and shows TO LAND", async () => {
    const reply = "Landed \u001b[31mred\u001b[0m\u001b]0;pwned\u0007 it's $(id) `x` ; *";
    const doc = await launch(
      'far-child',
      [{ sleep_ms: 3_000 }, { run: COMMIT }, { run: 'dogsled done' }, { reply }],
      ['--branch', 'feat/far', '--cwd', checkout],
    );
    const item = await waitFor(
      "the owner's item closed",
      async () => {
        const found = await ownerItem(doc.item);
        return found?.closed_ms != null ? found : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(item).toMatchObject({ host: 'big', close_reason: 'done', branch: 'feat/far', owner: owner.pane });
    // On the peer no pane is the owner (a pane there may carry the owner's id): the owner is named
    // with its host, and no inbox there gets the reply.
    const theirs = JSON.parse(await readFile(join(peerState(), 'items.json'), 'utf8')).items.find(
      (entry: Json) => entry.id === doc.item,
    );
    expect(theirs).toMatchObject({
      owner: null,
      owner_pane: owner.pane,
      owner_host: expect.stringMatching(/^h_/),
    });
    const peerInboxes = await readdir(join(peerState(), 'inbox')).catch(() => [] as string[]);
    for (const name of peerInboxes.filter((n) => n.endsWith('.json'))) {
      expect(await readFile(join(peerState(), 'inbox', name), 'utf8')).not.toContain(`reply:${doc.item}`);
    }
    const record = await waitFor(
      "the reply in the owner's inbox",
      async () => (await ownerRecords()).find((r) => r.ref === `reply:${doc.item}`),
      { timeoutMs: 30_000 },
    );
    expect(record).toMatchObject({
      kind: 'reply',
      state: 'pending',
      sender: expect.objectContaining({ host: 'big', name: 'far-child', pane: doc.pane }),
    });
    expect(record.text).toContain("it's $(id) `x` ; *");

    const listed = await cli(['inbox', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const received = JSON.parse(listed.stdout).received as Json[];
    expect(received.find((r) => r.id === record.id)?.text).toContain('far-child finished');
    // The Stop hook hands it to the owner's harness, stripped of every escape sequence.
    const stop = await runCli(['hook', 'inbox', '--harness', 'claude', '--event', 'Stop'], env, {
      input: JSON.stringify({ hook_event_name: 'Stop', stop_hook_active: false }),
    });
    expect(stop.code).toBe(0);
    const reason = JSON.parse(stop.stdout).reason as string;
    expect(reason).toContain('far-child finished');
    expect(reason).toContain("Landed red it's $(id) `x` ; *");
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(reason)).toBe(false);

    const rows = await waitFor(
      'the TO LAND row',
      async () => {
        const board = await cli(['board', '--json']);
        const group = JSON.parse(board.stdout).groups.find((g: Json) => g.id === 'to_land');
        return group.rows.length > 0 ? group.rows : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(rows).toEqual([
      expect.objectContaining({
        item: doc.item,
        host: 'big',
        reason: 'far-child: branch feat/far +1 to land',
      }),
    ]);
    await waitFor('outbox empty', async () => ((await outbox()).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
  });

  it('tells another sender here that the child on the peer finished, through the peer outbox, once', async () => {
    const made = (await local.call('workspace.create', { cwd: fleet.box.home, label: 'sender' }))
      .result as Json;
    const sender = { pane: made.root_pane.pane_id, terminal: made.root_pane.terminal_id };
    const recordsOf = async (terminal: string): Promise<Json[]> => {
      const text = await readFile(join(fleet.box.state, 'inbox', `${terminal}.json`), 'utf8').catch(
        () => null,
      );
      return text === null ? [] : JSON.parse(text).records;
    };
    const go = join(fleet.peers.peer('big').user.home, 'go-told');
    const doc = await launch(
      'told-child',
      // Ready at its first turn's end (not Herdr's 30 s start wait), then works until the test has
      // sent it more (a loaded machine takes seconds per ssh call).
      [
        { reply: 'On it.' },
        { run: `while [ ! -e '${go}' ]; do sleep 0.2; done` },
        { run: 'dogsled done' },
        { reply: 'Done here.' },
      ],
      ['--cwd', '/tmp'],
    );
    await registerReader(doc.pane);
    // Another pane of this host, not the owner, sends the child work there.
    const sent = await cli(
      ['send', doc.pane, '--host', 'big', '--message', 'Also $(id) \u001b[31mthis\u001b[0m ; *'],
      { HERDR_PANE_ID: sender.pane },
    );
    expect(sent.code, sent.stderr).toBe(0);
    await fleet.peers.peer('big').run(['touch', go]);
    const notice = await waitFor(
      "the sender's finished notice",
      async () => (await recordsOf(sender.terminal)).find((r) => r.ref === `finished:${doc.item}`),
      { timeoutMs: 90_000 },
    );
    expect(notice).toMatchObject({
      kind: 'reply',
      state: 'pending',
      sender: expect.objectContaining({ host: 'big', name: 'told-child', pane: doc.pane }),
    });
    expect(notice.text).toBe('told-child finished; start a new child for more work.');
    await waitFor('outbox empty', async () => ((await outbox()).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
    // Once, and never to the owner, whose inbox has the reply instead.
    expect((await recordsOf(sender.terminal)).filter((r) => r.ref === `finished:${doc.item}`)).toHaveLength(
      1,
    );
    // The owner's reply comes through its own service's read of the peer, which need not have run yet.
    await waitFor(
      "the owner's reply",
      async () => ((await ownerRecords()).some((r) => r.ref === `reply:${doc.item}`) ? true : undefined),
      { timeoutMs: 60_000 },
    );
    expect((await ownerRecords()).some((r) => r.ref === `finished:${doc.item}`)).toBe(false);
    const listed = await cli(['inbox', 'list', '--json'], { HERDR_PANE_ID: sender.pane });
    expect(listed.code, listed.stderr).toBe(0);
    const shown = (JSON.parse(listed.stdout).received as Json[]).find((r) => r.id === notice.id);
    expect(shown?.text).toContain('told-child finished');
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(listed.stdout)).toBe(false);
  });

  it("opens a child outside any repository in the workspace with the caller's workspace name, made once", async () => {
    const first = await launch('ws-one', [{ reply: 'Ready.' }], ['--cwd', '/tmp']);
    const second = await launch('ws-two', [{ reply: 'Ready.' }], ['--cwd', '/tmp']);
    const workspaces = ((await peerHerdr.call('workspace.list')).result as Json).workspaces as Json[];
    const named = workspaces.filter((w) => w.label === LEAD_WORKSPACE);
    expect(named).toHaveLength(1);
    for (const doc of [first, second]) {
      const pane = ((await peerHerdr.call('pane.get', { pane_id: doc.pane })).result as Json).pane;
      expect(pane.workspace_id).toBe(named[0].workspace_id);
    }
    await cli(['close', first.pane, '--host', 'big']);
    await cli(['close', second.pane, '--host', 'big']);
  });

  it('reports a blocked child to its owner once per episode', async () => {
    const doc = await launch('asker', [{ ask: 'Which one, $(id)?' }], ['--cwd', '/tmp']);
    const blocked = await waitFor(
      'the blocked report',
      async () => {
        const found = (await ownerRecords()).filter((r) => r.kind === 'blocked' && r.ref.includes(doc.item));
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(blocked[0].sender).toMatchObject({ host: 'big', name: 'asker' });
    expect(blocked[0].text).toContain('asker');
    await waitFor('outbox empty', async () => ((await outbox()).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
    // The peer's service restarted (the owner's stopped meanwhile): it posts the same episode again,
    // and the owner's inbox still holds one report of it.
    await stopOwnerServe();
    const peer = fleet.peers.peer('big');
    await peer.stopServe();
    await peer.startServe({
      env: { DOGSLED_TEST: '1', DOGSLED_TEST_PROBE_ROOT: join(fleet.peers.root, 'proc-big') },
      interval: '1',
    });
    // The cases after this one launch there: the restarted service's second tick brings its CPU sample.
    await untilPeersEligible(fleet);
    await waitFor(
      'the episode posted again by the restarted peer service',
      async () => (await outbox()).find((r) => r.ref === blocked[0].ref),
      { timeoutMs: 30_000 },
    );
    startOwnerServe();
    await waitFor('outbox empty', async () => ((await outbox()).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
    const again = (await ownerRecords()).filter((r) => r.kind === 'blocked' && r.ref.includes(doc.item));
    expect(again).toHaveLength(1);
    await cli(['close', doc.pane, '--host', 'big']);
  });

  it('keeps records on the peer while its sshd is stopped and delivers them after recovery', async () => {
    const doc = await launch(
      'patient',
      [{ sleep_ms: 3_000 }, { run: 'dogsled done' }, { reply: 'Late reply.' }],
      ['--cwd', '/tmp'],
    );
    const sshd = fleet.peers.peer('big').sshd;
    await sshd.stop();
    try {
      const waiting = await waitFor(
        'the reply waiting in the peer outbox',
        async () => (await outbox()).find((r) => r.ref === `reply:${doc.item}`),
        { timeoutMs: 60_000 },
      );
      expect(waiting.message.owner_pane).toBe(owner.pane);
      expect((await ownerRecords()).some((r) => r.ref === `reply:${doc.item}`)).toBe(false);
    } finally {
      await sshd.start();
    }
    expect((await cli(['retry', 'big'])).code).toBe(0);
    // The reply and the close come in one claim: the item closes in the same pass.
    await waitFor(
      "the owner's item closed after recovery",
      async () => (await ownerItem(doc.item)).closed_ms ?? undefined,
      { timeoutMs: 60_000 },
    );
    expect((await ownerItem(doc.item)).close_reason).toBe('done');
    expect((await ownerRecords()).filter((r) => r.ref === `reply:${doc.item}`)).toHaveLength(1);
  });

  it("loses nothing and delivers nothing twice when the owner's service dies between its write and its ack", async () => {
    // The crashing service dies after its first write of whatever it takes, so nothing but this
    // child's records may wait for it. The case before ends when the owner's item is closed, which
    // the service writes before it acks the records on the peer: killed in between, it would leave
    // them leased there, and the crashing service would take them again and die on them before
    // this child's reply exists.
    await waitFor('outbox empty', async () => ((await outbox()).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
    await stopOwnerServe();
    const crashing = startOwnerServe({ DOGSLED_TEST_OUTBOX_CRASH: 'after-write' });
    const doc = await launch(
      'crash-test',
      // Its done may close the pane before the launch sees it ready: its done mark proves it started.
      [{ sleep_ms: 3_000 }, { run: 'dogsled done' }, { reply: 'Once only.' }],
      ['--cwd', '/tmp'],
    );
    const end = await exited(crashing);
    expect(end.signal).toBe('SIGKILL');
    // Written here, still leased on the peer: the ack never went.
    expect((await ownerRecords()).filter((r) => r.ref === `reply:${doc.item}`)).toHaveLength(1);
    expect((await outbox()).some((r) => r.ref === `reply:${doc.item}`)).toBe(true);
    startOwnerServe();
    await waitFor(
      'the records acked after the lease',
      async () => ((await outbox()).some((r) => r.item === doc.item) ? undefined : true),
      { timeoutMs: 60_000 },
    );
    expect((await ownerRecords()).filter((r) => r.ref === `reply:${doc.item}`)).toHaveLength(1);
    expect((await ownerItem(doc.item)).close_reason).toBe('done');
  });

  it("shows an open child's branch there as TO LAND once the child is idle, before anything closes it", async () => {
    // The owner's own service, whatever the case before left (its crashing one, had it failed).
    if (serveCrashes || !serve || serve.exitCode !== null || serve.signalCode !== null) {
      await stopOwnerServe();
      startOwnerServe();
    }
    const doc = await launch(
      'open-lander',
      [{ run: COMMIT }, { reply: 'Ready to land.' }],
      ['--branch', 'feat/open', '--cwd', checkout],
    );
    // The peer's branch watch forwards the commit; the peer's snapshot shows the child idle.
    const row = await waitFor(
      'the TO LAND row of the open child',
      async () => {
        const board = await cli(['board', '--json']);
        const group = JSON.parse(board.stdout).groups.find((g: Json) => g.id === 'to_land');
        return (group.rows as Json[]).find((r) => r.item === doc.item);
      },
      { timeoutMs: 60_000 },
    );
    expect(row).toMatchObject({ host: 'big', reason: 'open-lander: branch feat/open +1 to land' });
    expect((await ownerItem(doc.item)).closed_ms).toBeNull();
    // Prompt context reads the same rows.
    const context = await cli(['hook', 'context', '--harness', 'claude', '--event', 'UserPromptSubmit']);
    expect(context.code, context.stderr).toBe(0);
    expect(context.stdout).toContain('open-lander (branch feat/open +1 on big)');
  });
});
