// `node test/bench/transport.mjs`: one snapshot read from a real peer (a private sshd on loopback, a
// peer user running this build) over the pooled ssh2 RPC, against a fresh `ssh host true` (the floor;
// goal: the pool at most 0.05x of it) and against OpenSSH with a ControlMaster socket. Every figure
// is a median of calls interleaved in the same run. Needs root (it makes a user and an sshd); says
// why and exits 0 otherwise. The transport and the peer setup are bundled with esbuild as the CLI
// is, so ssh2 and msgpackr run from a bundle here too. BENCH_RUNS sets the repetitions.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadBundled, median, ROOT, RUNS } from './lib.mjs';

const {
  peers: { peerSupport, startPeers },
  pool: { SshPool },
  openssh: { OpenSshTransport },
} = await loadBundled('transport', {
  peers: 'test/e2e/peers/index.ts',
  pool: 'service/transport/pool.ts',
  openssh: 'service/transport/openssh.ts',
});

const dist = join(ROOT, 'dist');
const unsupported = peerSupport(dist);
if (unsupported) {
  console.log(`transport benchmark skipped: ${unsupported}`);
  process.exit(0);
}

const timed = async (fn) => {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const peers = await startPeers([{ tag: 'bench' }], dist);
try {
  const ssh = peers.client.ssh;
  const target = { host: 'bench', remoteCommand: peers.remoteCommand };
  const control = join(peers.root, 'cm-%C');
  const master = ['-o', 'ControlMaster=auto', '-o', `ControlPath=${control}`, '-o', 'ControlPersist=120'];
  const sshTrue = (extra = []) => {
    const r = spawnSync(ssh, [...extra, '-o', 'BatchMode=yes', 'bench', 'true'], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`ssh bench true exited ${r.status}`);
  };
  const openssh = new OpenSshTransport({ bin: ssh });
  const multiplexed = new OpenSshTransport({ bin: ssh, extraArgs: master });
  const snapshot = async (transport) => {
    const reply = await transport.exec(target, ['snapshot']);
    if (!reply.ok) throw new Error(`snapshot failed: ${reply.error}`);
  };

  const pool = new SshPool({ ssh: { bin: ssh } });
  const cold = await timed(() => snapshot(pool));
  sshTrue(master); // starts the master
  for (let i = 0; i < 3; i++) await snapshot(pool);

  const times = { fresh: [], cmTrue: [], cmSnapshot: [], oneShot: [], pool: [] };
  console.error(`measuring: ${RUNS} runs of each`);
  for (let i = 0; i < RUNS; i++) {
    times.fresh.push(await timed(async () => sshTrue()));
    times.cmTrue.push(await timed(async () => sshTrue(master)));
    times.cmSnapshot.push(await timed(() => snapshot(multiplexed)));
    times.oneShot.push(await timed(() => snapshot(openssh)));
    times.pool.push(await timed(() => snapshot(pool)));
  }
  await pool.close();
  spawnSync(ssh, [...master, '-O', 'exit', 'bench'], { stdio: 'ignore' });

  const m = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
  const row = (name, ms, vs) => `| ${name} | ${ms.toFixed(1)} | ${(ms / m.fresh).toFixed(3)}x | ${vs} |`;
  console.log('| snapshot read from a loopback peer | median ms | vs fresh `ssh host true` | note |');
  console.log('| --- | ---: | ---: | --- |');
  console.log(row('fresh `ssh host true` (floor)', m.fresh, 'a new ssh process and connection'));
  console.log(row('OpenSSH ControlMaster `true`', m.cmTrue, 'multiplexed, no dogsled'));
  console.log(row('OpenSSH ControlMaster snapshot', m.cmSnapshot, '`host snapshot` starts node on the peer'));
  console.log(row('OpenSSH one-shot snapshot', m.oneShot, 'what a one-shot CLI call costs'));
  console.log(row('pooled ssh2 RPC snapshot', m.pool, 'goal <= 0.05x'));
  console.log(row('pooled ssh2, first call', cold, 'ssh -G, connect, handshake, rpc channel (one run)'));
  console.log(
    `\npool vs fresh ssh: ${(m.pool / m.fresh).toFixed(3)}x (goal <= 0.05x); ` +
      `pool vs ControlMaster true: ${(m.pool / m.cmTrue).toFixed(2)}x; ` +
      `pool vs ControlMaster snapshot: ${(m.pool / m.cmSnapshot).toFixed(3)}x`,
  );
} finally {
  await peers.stop();
}
