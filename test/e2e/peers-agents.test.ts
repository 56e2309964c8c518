import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLaunches } from '../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../fakes/herdr/harness.js';
import { runCli } from '../helpers/cli.js';
import { registerPeerReader } from '../helpers/peer-inbox.js';
import { waitFor } from '../helpers/wait.js';
import { callerCheckout, git } from './peers/checkout.js';
import { type Fleet, startFleet, untilPeersEligible } from './peers/fleet.js';
import { type PeerHerdr, startPeerHerdr } from './peers/herdr.js';
import { peerSupport } from './peers/index.js';

const unsupported = peerSupport();
if (unsupported) console.warn(`peers-agents: skipped: ${unsupported}`);

/** Task text a shell would expand or a terminal would obey, had it been spliced or typed. */
const HOSTILE_TASK = 'Fix it\'s "quoted" $(id) `id` ; rm -rf / *\n-n second line\n';

function quickTask(text: string): string {
  return `${text}\n\`\`\`fake-agent\n${JSON.stringify({ steps: [{ reply: 'Finished.' }] })}\n\`\`\`\n`;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

describe.skipIf(unsupported)('agents across a fleet', { timeout: 180_000 }, () => {
  let fleet: Fleet;
  let herdrs: Record<string, PeerHerdr>;
  let local: FakeHerdr;
  let env: NodeJS.ProcessEnv;
  let origin: string;
  let checkout: string;
  const peerState = (tag: string) => join(fleet.peers.peer(tag).user.home, '.local', 'state', 'dogsled');
  const cli = (args: string[]) => runCli(args, env, { timeoutMs: 90_000 });
  const ownerItems = async (): Promise<Json[]> =>
    JSON.parse(await readFile(join(fleet.box.state, 'items.json'), 'utf8')).items;

  beforeAll(async () => {
    // Launches, reads, sends and closes there are the peers' verbs and Herdr's, never a tick of their
    // services (nothing here runs a service that pulls their outboxes).
    fleet = await startFleet([
      { tag: 'small', cores: 4, interval: '5' },
      { tag: 'big', cores: 16, interval: '5' },
    ]);
    herdrs = {};
    for (const tag of ['small', 'big']) {
      const peer = fleet.peers.peer(tag);
      // The origin below belongs to root: the peers' git may read it.
      await peer.writeHomeFile('.gitconfig', '[safe]\n\tdirectory = *\n');
      herdrs[tag] = await startPeerHerdr(peer);
    }
    local = await startFakeHerdr({ dir: join(fleet.box.root, 'herdr') });
    env = { ...fleet.env, HERDR_SOCKET_PATH: local.socketPath, PATH: `${local.binDir}:${fleet.env.PATH}` };
    // The caller's repository: a clone of an origin every peer can read, under the caller's home.
    ({ origin, checkout } = await callerCheckout(fleet, "it's proj"));
    await untilPeersEligible(fleet);
  });

  afterAll(async () => {
    for (const herdr of Object.values(herdrs ?? {})) await herdr.stop();
    await local?.stop();
    await fleet?.stop();
  });

  it('starts a pinned child on the peer: task, contract and record there, the owner item names the peer', async () => {
    const name = 'child-1';
    const result = await cli([
      'agent',
      '--host',
      'small',
      '--kind',
      'claude',
      '--name',
      name,
      '--cwd',
      '/tmp',
      '--json',
      '--message',
      quickTask(HOSTILE_TASK),
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ queued: false, host: 'small', label: 'small', name, kind: 'claude' });
    // The task file is on the host that runs the child, with the text unchanged; none stays here.
    const launches = join(peerState('small'), 'launches');
    const task = await readFile(join(launches, `${doc.launch}.task.md`), 'utf8');
    expect(task).toContain(HOSTILE_TASK);
    expect(await readFile(join(launches, `${doc.launch}.contract.md`), 'utf8')).not.toBe('');
    const record = JSON.parse(await readFile(join(launches, `${doc.launch}.json`), 'utf8'));
    expect(record).toMatchObject({ state: 'started', host: 'local', name, cwd: '/tmp', pane: doc.pane });
    expect(await readdir(join(fleet.box.state, 'launches')).catch(() => [])).toEqual([]);
    const [launch] = await waitFor('the child on small', async () => {
      const found = await readLaunches(herdrs.small?.logDir as string);
      return found.length > 0 ? found : undefined;
    });
    expect(launch?.task_files).toContain(join(launches, `${doc.launch}.task.md`));
    const item = (await ownerItems()).find((entry) => entry.id === doc.item);
    expect(item).toMatchObject({ kind: 'agent', host: 'small', pane: doc.pane, name, launch: doc.launch });
  });

  it('places an unpinned child on the freest host', async () => {
    const result = await cli([
      'agent',
      '--kind',
      'pi',
      '--name',
      'freest',
      '--cwd',
      '/tmp',
      '--json',
      '--message',
      quickTask('x'),
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'big', name: 'freest' });
  });

  it('makes the --branch worktree in a fresh clone on the peer, and reads, sends to and closes the child there', async () => {
    const result = await cli([
      'agent',
      '--host',
      'big',
      '--kind',
      'claude',
      '--name',
      'brancher',
      '--branch',
      'feat/x',
      '--cwd',
      checkout,
      '--json',
      '--message',
      quickTask('Work on the branch.'),
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(result.stdout);
    const home = fleet.peers.peer('big').user.home;
    const clone = join(home, 'src', "it's proj");
    expect(git(clone, 'remote', 'get-url', 'origin').trim()).toBe(origin);
    expect(git(clone, 'branch', '--list', 'feat/x').trim()).not.toBe('');
    expect(doc).toMatchObject({ host: 'big', branch: 'feat/x' });
    const worktrees = git(clone, 'worktree', 'list', '--porcelain');
    expect(worktrees).toContain('branch refs/heads/feat/x');
    expect(worktrees).toContain('locked agent:worktree');
    // The caller's checkout is untouched: the branch exists only on the peer.
    expect(git(checkout, 'branch', '--list', 'feat/x').trim()).toBe('');

    const byName = JSON.parse((await cli(['read', 'brancher', '--json'])).stdout);
    const pinned = await cli(['read', doc.launch, '--host', 'big', '--json']);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(JSON.parse(pinned.stdout)).toMatchObject({
      kind: 'agent',
      host: 'big',
      pane: doc.pane,
      name: 'brancher',
    });
    expect(byName).toMatchObject({ kind: 'agent', host: 'big', pane: doc.pane, target: 'brancher' });

    const unread = await cli(['send', doc.pane, '--host', 'big', '--message', 'hello $(id)']);
    expect(unread.code).toBe(2);
    expect(unread.stderr).toMatch(
      /^dogsled: send: big: brancher .* has no inbox reader: .*nothing was sent\n$/,
    );
    // The child's harness registers its reader there (its hook, run in its pane's name).
    const big = fleet.peers.peer('big');
    await registerPeerReader(
      big,
      herdrs.big?.socketPath as string,
      fleet.peers.remoteCommand,
      doc.pane,
      'hello',
    );
    const sent = await cli([
      'send',
      'brancher',
      '--host',
      'big',
      '--kind',
      'task',
      '--message',
      "it's $(id)\n`x`",
    ]);
    expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: '' });
    // The peer says what the local send says: an idle Claude child reads it when it next acts.
    expect(sent.stdout).toMatch(
      new RegExp(
        `^sent (m_[a-z2-7]{12}) to brancher \\(${doc.pane}\\): it is idle, so claude reads \\1 at its next prompt or stop\n$`,
      ),
    );
    const inbox = JSON.parse(
      await readFile(join(peerState('big'), 'inbox', `${doc.terminal_id}.json`), 'utf8'),
    );
    expect(inbox.records).toEqual([
      expect.objectContaining({
        kind: 'task',
        text: "it's $(id)\n`x`",
        sender: expect.objectContaining({ host: hostname() }),
      }),
    ]);

    // Its turn over (Herdr there shows it idle or done), its reply is in its transcript there.
    await waitFor('brancher to finish its turn', async () => {
      const agent = ((await herdrs.big?.call('agent.get', { target: doc.pane }))?.result as Json)?.agent;
      return agent?.agent_status === 'idle' || agent?.agent_status === 'done' || undefined;
    });
    const closed = await cli(['close', doc.pane, '--host', 'big', '--json']);
    expect(closed.code, closed.stderr).toBe(0);
    // The document a close here prints: what the peer kept of the child goes to the item, not here.
    expect(Object.keys(JSON.parse(closed.stdout)).sort()).toEqual(['pane', 'pane_closed', 'worktree']);
    expect(JSON.parse(closed.stdout)).toMatchObject({
      pane: doc.pane,
      pane_closed: true,
      worktree: expect.objectContaining({ branch: 'feat/x' }),
    });
    expect(git(clone, 'worktree', 'list', '--porcelain')).not.toContain('feat/x');
    // The owner's item keeps the reply (and the receipt) the child left, as a close here keeps them.
    const item = (await ownerItems()).find((entry) => entry.id === doc.item);
    expect(item).toMatchObject({ close_reason: 'closed', reply: 'Finished.' });
    expect(item.receipt).toMatchObject({ turns: expect.any(Number) });
  });

  it('refuses a peer checkout with another origin before any change', async () => {
    const peer = fleet.peers.peer('small');
    const clone = join(peer.user.home, 'src', "it's proj");
    await peer.run(['git', 'init', '-q', '-b', 'main', clone]);
    await peer.run(['git', '-C', clone, 'remote', 'add', 'origin', '/elsewhere.git']);
    const before = await peer.run(['git', '-C', clone, 'for-each-ref']);
    const result = await cli([
      'agent',
      '--host',
      'small',
      '--kind',
      'claude',
      '--name',
      'wrong-origin',
      '--branch',
      'feat/y',
      '--cwd',
      checkout,
      '--message',
      quickTask('x'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^dogsled: agent: small: .*has origin "?\/elsewhere\.git"?, not the caller's/,
    );
    expect(await peer.run(['git', '-C', clone, 'for-each-ref'])).toBe(before);
    expect(await peer.run(['git', '-C', clone, 'worktree', 'list'])).not.toContain('feat');
  });

  it('place --branch and run --branch on a peer use the worktree in its checkout; read reads the job there', async () => {
    const placed = await cli([
      'place',
      '--host',
      'big',
      '--branch',
      'feat/placed',
      '--repo',
      checkout,
      '--json',
    ]);
    expect({ code: placed.code, stderr: placed.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(placed.stdout);
    const clone = join(fleet.peers.peer('big').user.home, 'src', "it's proj");
    expect(doc).toMatchObject({ host: 'big', branch: 'feat/placed', created: true });
    expect(doc.path.startsWith(fleet.peers.peer('big').user.home)).toBe(true);
    expect(git(clone, 'worktree', 'list', '--porcelain')).toContain(`worktree ${doc.path}\n`);

    const ran = await cli([
      'run',
      '--host',
      'big',
      '--branch',
      'feat/run',
      '--cwd',
      checkout,
      '--wait',
      '--',
      'sh',
      '-c',
      'git branch --show-current; pwd',
    ]);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    const [current, where] = ran.stdout.trimEnd().split('\n');
    expect(current).toBe('feat/run');
    expect(git(clone, 'worktree', 'list', '--porcelain')).toContain(`worktree ${where}\n`);
    const job = (await ownerItems()).find((entry) => entry.kind === 'job' && entry.host === 'big');
    const read = await cli(['read', job.job, '--json']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({
      kind: 'job',
      host: 'big',
      target: job.job,
      output: `feat/run\n${where}`,
    });
  });
});
