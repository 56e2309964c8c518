// `node test/bench/fleet-bus.mjs`: the fleet bus at scale, beside the SSH mesh, in one run.
//   1. One real `dogsled serve` on the bus (a real nats-server 2.9 with JetStream, loopback) and
//      BENCH_BUS_HOSTS (200) simulated hosts in one process (test/bench/fleet-bus-publishers.mjs:
//      a connection each, a real-sized document put every 10 s, spread over the tick): how long
//      after every simulated host has put once `status --json` lists all of them, `status --json`'s
//      wall time with them against `node -e 0`, and the service's CPU (% of one core) and RSS over
//      BENCH_SECONDS with them and alone, with the bytes per second through the server (its own
//      /varz in_bytes + out_bytes) over the same windows.
//   2. The SSH mesh at 8 peers (8 private sshds on loopback, as test/bench/fleet.mjs): the same
//      service with 8 [[hosts]] and an open item (so it reads every peer each 10 s over its pool),
//      its CPU and RSS over BENCH_SECONDS, and a warm `status --json`. Needs root; skipped without.
// A fixture /proc keeps every placement off the machine's real load; NODE_EXTRA_CA_CERTS is unset
// for every process (lib.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import {
  CLI,
  idleProc,
  loadBundled,
  median,
  ROOT,
  RUNS,
  residentCost,
  SECONDS,
  stop,
  timeAndCpu,
} from './lib.mjs';

const SIMULATED = Number(process.env.BENCH_BUS_HOSTS ?? 200);
const TICK_MS = 10_000;
const SSH_PEERS = 8;

const uptime = () => spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
const freePort = () =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cleanEnv = () => {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(DOGSLED_|HERDR_|XDG_|TMUX)/.test(key) || key === 'CI' || key === 'NO_COLOR') continue;
    env[key] = value;
  }
  return env;
};

const root = mkdtempSync(join(tmpdir(), 'dogsled-bench-bus-'));
const children = [];
const loadAtStart = uptime();
try {
  // The server, with its monitoring endpoint for the byte counts.
  const [port, http] = [await freePort(), await freePort()];
  const conf = join(root, 'server.conf');
  writeFileSync(
    conf,
    `host: 127.0.0.1\nport: ${port}\nhttp: 127.0.0.1:${http}\njetstream { store_dir: "${join(root, 'js')}" }\n`,
  );
  const server = spawn('/usr/sbin/nats-server', ['-c', conf, '-l', join(root, 'server.log')], {
    stdio: 'ignore',
  });
  children.push(server);
  const url = `nats://127.0.0.1:${port}`;
  const varz = async () => {
    for (;;) {
      try {
        const v = await (await fetch(`http://127.0.0.1:${http}/varz`)).json();
        return v.in_bytes + v.out_bytes;
      } catch {
        await sleep(100);
      }
    }
  };
  await varz();

  // The one real service.
  const home = join(root, 'home');
  const state = join(root, 'state');
  mkdirSync(join(home, '.config', 'dogsled'), { recursive: true });
  const fixture = idleProc(join(root, 'fixture'));
  const env = { ...cleanEnv(), HOME: home, DOGSLED_STATE: state, TMPDIR: root };
  const writeConfig = (text) => writeFileSync(join(home, '.config', 'dogsled', 'config.toml'), text);
  writeConfig(`[fleet]\nbus = "${url}"\nid = "real"\n`);
  const serve = spawn(process.execPath, [CLI, 'serve'], { env: { ...env, ...fixture.env }, stdio: 'ignore' });
  children.push(serve);

  const nc = await connect({ servers: url });
  const kv = await (async () => {
    for (;;) {
      try {
        return await new Kvm(nc).open('dogsled_hosts');
      } catch {
        await sleep(200);
      }
    }
  })();
  let template;
  for (; template === undefined; await sleep(200)) {
    const entry = await kv.get('real').catch(() => null);
    if (entry?.value.length) template = entry.string();
  }
  await nc.close();

  /** The service's CPU and RSS over the window, and the server's bytes per second over the same. */
  const serviceCost = async () => {
    let before;
    const [cost, broker] = await Promise.all([
      residentCost(serve, SECONDS),
      residentCost(server, SECONDS),
      (async () => {
        await sleep(3000);
        before = await varz();
      })(),
    ]);
    const after = await varz();
    return { ...cost, server: broker, bytesPerSecond: (after - before) / SECONDS };
  };
  const statusOnce = () => {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [CLI, 'status', '--json'], { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`status --json exited ${r.status}: ${r.stderr}`);
    const peers = JSON.parse(r.stdout).hosts.filter((h) => !h.local);
    return { ms, listed: peers.filter((h) => h.reachable).length, peers: peers.length };
  };
  /** `status --json` against `node -e 0`, interleaved. */
  const statusRuns = () => {
    const floor = [];
    const status = [];
    for (let i = 0; i < RUNS; i++) {
      floor.push(timeAndCpu([process.execPath, '-e', '0'], env).ms);
      status.push(statusOnce().ms);
    }
    return { floor: median(floor), status: median(status) };
  };

  console.error(`measuring: the service alone on the bus for ${SECONDS}s`);
  const alone = await serviceCost();
  const aloneStatus = statusRuns();

  console.error(`starting ${SIMULATED} simulated hosts`);
  const publishers = spawn(
    process.execPath,
    [
      join(ROOT, 'test', 'bench', 'fleet-bus-publishers.mjs'),
      url,
      String(SIMULATED),
      String(TICK_MS),
      template,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'], cwd: ROOT },
  );
  children.push(publishers);
  await new Promise((resolve, reject) => {
    let out = '';
    publishers.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready')) resolve();
    });
    publishers.once('exit', (code) => reject(new Error(`the publishers exited ${code}`)));
  });
  const ready = Date.now();
  let listed;
  for (;;) {
    const seen = statusOnce();
    if (seen.listed >= SIMULATED) {
      listed = Date.now() - ready;
      break;
    }
    if (Date.now() - ready > 120_000) throw new Error(`status --json listed ${seen.listed} after 2 minutes`);
    await sleep(100);
  }
  console.error(`measuring: the service with ${SIMULATED} hosts for ${SECONDS}s`);
  const busy = await serviceCost();
  const busyStatus = statusRuns();
  publishers.stdin.end();
  await stop(serve);
  fixture.stop();

  console.log(`| fleet bus, 1 service + ${SIMULATED} simulated hosts (10 s tick) | figure |`);
  console.log('| --- | ---: |');
  console.log(`| \`status --json\` lists all ${SIMULATED}, after each has put once | ${listed} ms |`);
  console.log(
    `| \`status --json\` wall, ${SIMULATED} bus hosts (vs \`node -e 0\`) | ${busyStatus.status.toFixed(0)} ms (${(busyStatus.status / busyStatus.floor).toFixed(2)}×) |`,
  );
  console.log(
    `| \`status --json\` wall, no peers (vs \`node -e 0\`) | ${aloneStatus.status.toFixed(0)} ms (${(aloneStatus.status / aloneStatus.floor).toFixed(2)}×) |`,
  );
  const row = (name, r) =>
    console.log(
      `| ${name} | ${r.cpuPercent.toFixed(2)}% | ${r.rssMiB.toFixed(0)} MiB | ${r.server.cpuPercent.toFixed(2)}% | ${(r.bytesPerSecond / 1024).toFixed(1)} KiB/s |`,
    );
  console.log('');
  console.log(
    `| \`serve\` over ${SECONDS} s | CPU (% of one core) | RSS | nats-server CPU | bus bytes/s (server in + out) |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: |');
  row(`${SIMULATED} bus hosts`, busy);
  row('alone on the bus', alone);

  if (process.getuid?.() !== 0 || process.env.BENCH_SSH === '0') {
    console.log('\nSSH mesh skipped: real SSH peers need root (or BENCH_SSH=0 was set)');
  } else {
    await sshMesh();
  }
  console.log(`\nload at start: ${loadAtStart}\nload at end:   ${uptime()}`);
} finally {
  for (const child of children.reverse()) await stop(child);
  rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}

/** The service with 8 SSH peers and an open item, as test/bench/fleet.mjs sets it up. */
async function sshMesh() {
  const {
    peers: { peerSupport, startPeers },
    work: { updateItems },
    paths: { ensureStateDir, statePaths },
    fixtures: { itemFixture },
  } = await loadBundled('fleet', {
    peers: 'test/e2e/peers/index.ts',
    work: 'service/state/records/queue-items.ts',
    paths: 'service/state/paths.ts',
    fixtures: 'test/helpers/job-fixtures.ts',
  });
  const dist = join(ROOT, 'dist');
  const unsupported = peerSupport(dist);
  if (unsupported) {
    console.log(`\nSSH mesh skipped: ${unsupported}`);
    return;
  }
  const tags = Array.from({ length: SSH_PEERS }, (_, i) => `f${i + 1}`);
  const peers = await startPeers(
    tags.map((tag) => ({ tag })),
    dist,
  );
  const caller = mkdtempSync(join(tmpdir(), 'dogsled-bench-mesh-'));
  const fixture = idleProc(join(peers.root, 'fixture'));
  const own = [];
  try {
    for (const tag of tags) await peers.peer(tag).startServe({ env: fixture.env });
    const home = join(caller, 'home');
    const state = join(caller, 'state');
    const bin = join(caller, 'bin');
    for (const dir of [join(home, '.config', 'dogsled'), bin]) mkdirSync(dir, { recursive: true });
    spawnSync('ln', ['-s', peers.client.ssh, join(bin, 'ssh')]);
    const env = {
      ...cleanEnv(),
      HOME: home,
      DOGSLED_STATE: state,
      TMPDIR: caller,
      PATH: `${bin}:${process.env.PATH}`,
    };
    writeFileSync(
      join(home, '.config', 'dogsled', 'config.toml'),
      [
        `remote_command = ${JSON.stringify(peers.remoteCommand)}`,
        '',
        ...tags.map((id) => `[[hosts]]\nid = "${id}"\ntarget = "${id}"\n`),
      ].join('\n'),
    );
    const io = { paths: statePaths(state), now: Date.now, warn: () => undefined };
    await ensureStateDir(state);
    await updateItems(io, (current) => ({
      result: undefined,
      next: { ...current, items: [...current.items, itemFixture({ id: 'i_benchopen', host: 'local' })] },
    }));
    const serve = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...env, ...fixture.env },
      stdio: 'ignore',
    });
    own.push(serve);
    console.error(`measuring: the service with ${SSH_PEERS} SSH peers for ${SECONDS}s`);
    const cost = await residentCost(serve, SECONDS);
    const floor = [];
    const warm = [];
    for (let i = 0; i < RUNS; i++) {
      floor.push(timeAndCpu([process.execPath, '-e', '0'], env).ms);
      warm.push(timeAndCpu([process.execPath, CLI, 'status', '--json'], env).ms);
    }
    console.log('');
    console.log(`| SSH mesh, 1 service + ${SSH_PEERS} peers (one open item) | figure |`);
    console.log('| --- | ---: |');
    console.log(`| \`serve\` CPU over ${SECONDS} s | ${cost.cpuPercent.toFixed(2)}% of one core |`);
    console.log(`| \`serve\` RSS | ${cost.rssMiB.toFixed(0)} MiB |`);
    console.log(
      `| \`status --json\` wall, warm cache (vs \`node -e 0\`) | ${median(warm).toFixed(0)} ms (${(median(warm) / median(floor)).toFixed(2)}×) |`,
    );
  } finally {
    for (const child of own) await stop(child);
    fixture.stop();
    await peers.stop();
    rmSync(caller, { recursive: true, force: true, maxRetries: 3 });
  }
}
