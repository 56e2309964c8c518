// What an owner depends on across real sshd peers: a child launched for an owner on another host is
// linked in the peer's parents.json (its stall reaches the owner's inbox through the peer's outbox,
// and the peer never notifies it as a top-level pane; the link goes once the child closed), and
// `send NAME` without `--host` finds an item's, a tracked pane's or a Herdr agent's name on any host,
// refusing in one line a name found on two hosts.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHerdr, startFakeHerdr } from '../fakes/herdr/harness.js';
import { exited, runCli, startCli } from '../helpers/cli.js';
import { registerPeerReader } from '../helpers/peer-inbox.js';
import { waitFor } from '../helpers/wait.js';
import { type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { type PeerHerdr, startPeerHerdr } from './peers/herdr.js';
import { peerSupport } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-owner-records: skipped: ${unsupported}`);

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

function task(steps: unknown[]): string {
  return `Work.\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`;
}

describe.skipIf(unsupported)(
  'records and names an owner depends on, across peers',
  { timeout: 240_000 },
  () => {
    let fleet: Fleet;
    let peerHerdr: PeerHerdr;
    let local: FakeHerdr;
    let env: NodeJS.ProcessEnv;
    let owner: { pane: string; terminal: string };
    let serve: ReturnType<typeof startCli> | undefined;
    const peer = () => fleet.peers.peer('big');
    const peerState = () => join(peer().user.home, '.local', 'state', 'dogsled');
    const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      runCli(args, { ...env, ...extra }, { timeoutMs: 90_000 });
    const peerJson = async (name: string): Promise<Json> =>
      JSON.parse(await readFile(join(peerState(), name), 'utf8').catch(() => 'null'));
    const inboxOf = async (state: string, terminal: string): Promise<Json[]> =>
      JSON.parse(
        await readFile(join(state, 'inbox', `${terminal}.json`), 'utf8').catch(() => '{"records":[]}'),
      ).records;
    /** dogsled on the peer, as its user, with its Herdr. */
    const onPeer = (args: string[]) => {
      const [node, bundle] = fleet.peers.remoteCommand as [string, string];
      return peer().run([
        'env',
        'HERDR_ENV=1',
        `HERDR_SOCKET_PATH=${peerHerdr.socketPath}`,
        node,
        bundle,
        ...args,
      ]);
    };
    const launch = async (name: string, steps: unknown[]): Promise<Json> => {
      const result = await cli([
        'agent',
        '--host',
        'big',
        '--kind',
        'claude',
        '--name',
        name,
        '--cwd',
        '/tmp',
        '--json',
        '--message',
        task(steps),
      ]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(result.stdout);
    };

    beforeAll(async () => {
      fleet = await startFleet([{ tag: 'big', cores: 16 }]);
      peerHerdr = await startPeerHerdr(peer());
      // A child stalls after 2 s of silence there, and the peer's watchdog looks every second.
      await peer().stopServe();
      await peer().startServe({
        env: {
          DOGSLED_TEST: '1',
          DOGSLED_TEST_PROBE_ROOT: join(fleet.peers.root, 'proc-big'),
          DOGSLED_TEST_STALL_MS: '2000',
          DOGSLED_TEST_WATCHDOG_PACE_MS: '1000',
        },
        interval: '1',
      });
      local = await startFakeHerdr({ dir: join(fleet.box.root, 'herdr') });
      const created = (await local.call('workspace.create', { cwd: fleet.box.home })).result as Json;
      owner = { pane: created.root_pane.pane_id, terminal: created.root_pane.terminal_id };
      const base = {
        ...fleet.env,
        HERDR_SOCKET_PATH: local.socketPath,
        HERDR_ENV: '1',
        PATH: `${local.binDir}:${fleet.env.PATH}`,
      };
      env = { ...base, HERDR_PANE_ID: owner.pane };
      await untilPeersEligible(fleet);
      // The owner's service takes the peer's outbox every half second.
      serve = startCli(['serve', '--interval', '1'], { ...base, DOGSLED_TEST_PEERS_PACE_MS: '500' });
    });

    afterAll(async () => {
      if (serve && serve.exitCode === null && serve.signalCode === null) {
        serve.kill('SIGKILL');
        await exited(serve);
      }
      await peerHerdr?.stop();
      await local?.stop();
      await fleet?.stop();
    });

    it("links a remote-owned child in the peer's parents.json; its stall reaches the owner, never a notification there", async () => {
      // Ready at its first idle, then a turn whose transcript never changes again.
      const doc = await launch('hang1', [{ reply: 'On it.' }, { hang: true }]);
      const parents = await peerJson('parents.json');
      const identity = JSON.parse(await readFile(join(fleet.box.state, 'identity.json'), 'utf8'));
      const [terminal, link] = Object.entries(parents?.children ?? {})[0] ?? [];
      expect(link).toEqual({
        owner: owner.pane,
        owner_host: identity.id,
        item: doc.item,
        pane: doc.pane,
        linked_ms: expect.any(Number),
      });
      expect(typeof terminal).toBe('string');
      await registerPeerReader(peer(), peerHerdr.socketPath, fleet.peers.remoteCommand, doc.pane);
      const stall = await waitFor(
        "the stall check-in in the owner's inbox",
        async () =>
          (await inboxOf(fleet.box.state, owner.terminal)).find(
            (record) => record.kind === 'check_in' && String(record.ref).startsWith(`stall:${doc.item}:`),
          ),
        { timeoutMs: 90_000 },
      );
      expect(stall.state).toBe('pending');
      expect(stall.sender.host).toBe('big');
      expect(stall.text).toMatch(/^dogsled check-in \(a child stalled\)\./);
      expect(stall.text).toContain(`hang1 (${doc.pane}) on ${peer().hostname}: working`);
      expect(stall.text).toContain('STALLED');
      // Nobody's top-level pane on the peer: its Herdr was never asked to notify.
      const notified = (await peerHerdr.call('_fake.notifications.list')).result as Json;
      expect(notified.notifications).toEqual([]);
      // Its pane gone (a working child cannot be closed by dogsled): the peer closes its item, tells
      // the owner, and the link goes.
      expect((await peerHerdr.call('pane.close', { pane_id: doc.pane })).error).toBeUndefined();
      await waitFor(
        'the link dropped once the child closed',
        async () =>
          (await peerJson('parents.json'))?.children?.[terminal as string] === undefined ? true : undefined,
        { timeoutMs: 60_000 },
      );
    });

    it('sends to a name on a peer without --host: a child, a tracked pane; one line for a name on two hosts or none', async () => {
      const child = await launch('far', [{ reply: 'Ready.' }]);
      await registerPeerReader(peer(), peerHerdr.socketPath, fleet.peers.remoteCommand, child.pane);
      const sent = await cli(['send', 'far', '--message', 'Also $(id) \u001b[31mthis']);
      expect(sent.code, sent.stderr).toBe(0);
      // An idle Claude child on the peer: the answer says it reads the record when it next acts.
      expect(sent.stdout).toMatch(
        new RegExp(
          `^sent (m_\\w+) to far \\(${child.pane}\\): it is idle, so claude reads \\1 at its next prompt or stop\\n$`,
        ),
      );
      const childTerminal = (await peerHerdr.call('pane.get', { pane_id: child.pane })).result as Json;
      const there = await inboxOf(peerState(), childTerminal.pane.terminal_id);
      expect(there.map((record) => record.text)).toContain('Also $(id) \u001b[31mthis');

      // A pane tracked on the peer by its own name there.
      const made = (await peerHerdr.call('workspace.create', { cwd: peer().user.home })).result as Json;
      const tracked = made.root_pane;
      await onPeer(['track', 'local', tracked.pane_id, '--name', 'tracked-one']);
      await registerPeerReader(peer(), peerHerdr.socketPath, fleet.peers.remoteCommand, tracked.pane_id);
      const toTracked = await cli(['send', 'tracked-one', '--message', 'hello tracked']);
      expect(toTracked.code, toTracked.stderr).toBe(0);
      expect((await inboxOf(peerState(), tracked.terminal_id)).map((record) => record.text)).toContain(
        'hello tracked',
      );

      // The same name tracked here and there: refused in one line naming both, nothing written.
      const here = (await local.call('workspace.create', { cwd: fleet.box.home })).result as Json;
      expect((await cli(['track', 'local', here.root_pane.pane_id, '--name', 'dup'])).code).toBe(0);
      const other = (await peerHerdr.call('workspace.create', { cwd: peer().user.home })).result as Json;
      await onPeer(['track', 'local', other.root_pane.pane_id, '--name', 'dup']);
      const dup = await cli(['send', 'dup', '--message', 'which one?']);
      expect(dup.code).toBe(2);
      expect(dup.stdout).toBe('');
      expect(dup.stderr).toBe(
        `dogsled: send: "dup" is on 2 hosts: local (${here.root_pane.pane_id} dup), big (${other.root_pane.pane_id} dup); name one with --host; nothing was sent\n`,
      );
      expect(await inboxOf(fleet.box.state, here.root_pane.terminal_id)).toEqual([]);
      expect(await inboxOf(peerState(), other.root_pane.terminal_id)).toEqual([]);

      const none = await cli(['send', 'nobody', '--message', 'hi']);
      expect(none.code).toBe(2);
      expect(none.stderr).toBe(
        'dogsled: send: no agent or pane "nobody" on any host (looked on local, big); nothing was sent\n',
      );
      await cli(['close', child.pane, '--host', 'big']);
    });
  },
);
