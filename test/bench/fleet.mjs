// `node test/bench/fleet.mjs`: the fleet as a caller sees it, over 8 real peers (8 private sshds on
// loopback, one user each, every peer running this build's `dogsled serve` on an idle fixture /proc):
//   1. `status --json` cold (no peer cache: every peer read fresh over OpenSSH) and warm (the cache
//      younger than 10 s), each against one fresh `ssh host true` measured interleaved in the run;
//   2. the same with one peer dead (its sshd stopped) and one frozen (SIGSTOP), against the peer
//      budget too: a dead or hung peer must not hold a caller past it;
//   3. the service's CPU (utime+stime from /proc/PID/stat, % of one core) over BENCH_SECONDS while it
//      owns an open item (so it keeps all 8 peers fresh over its ssh2 pool), against an idle `node`
//      over the same window; then the same service with no peers configured.
// Needs root (it makes users and sshds); says why and exits 0 otherwise. BENCH_RUNS sets the runs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, idleProc, loadBundled, median, ROOT, RUNS, residentCost, SECONDS, stop } from './lib.mjs';

const PEERS = 8;
// The command's own budget for its peers (service/hosts/peers.ts, PEER_BUDGET_MS).
const BUDGET_MS = 4_000;
// Cold reads with a frozen peer wait out the budget each time: fewer runs of those.
const FAULT_RUNS = Math.max(3, Math.min(RUNS, 10));

// Before bundling: a user who is not root may not be able to write the cache either.
if (process.getuid?.() !== 0) {
  console.log('fleet benchmark skipped: real SSH peers need root (useradd, sshd)');
  process.exit(0);
}

const {
  peers: { peerSupport, startPeers },
  work: { updateItems, readItems },
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
  console.log(`fleet benchmark skipped: ${unsupported}`);
  process.exit(0);
}

const uptime = () => spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
const loadAtStart = uptime();
const tags = Array.from({ length: PEERS }, (_, i) => `f${i + 1}`);
const peers = await startPeers(
  tags.map((tag) => ({ tag })),
  dist,
);
const caller = mkdtempSync(join(tmpdir(), 'dogsled-bench-fleet-'));
const fixture = idleProc(join(peers.root, 'fixture'));
const children = [];
try {
  console.error(`starting ${PEERS} peers' services`);
  for (const tag of tags) await peers.peer(tag).startServe({ env: fixture.env });

  const home = join(caller, 'home');
  const state = join(caller, 'state');
  const bin = join(caller, 'bin');
  for (const dir of [join(home, '.config', 'dogsled'), bin]) mkdirSync(dir, { recursive: true });
  symlinkSync(peers.client.ssh, join(bin, 'ssh'));
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(DOGSLED_|HERDR_|XDG_|TMUX)/.test(key) || key === 'CI' || key === 'NO_COLOR') continue;
    env[key] = value;
  }
  Object.assign(env, {
    HOME: home,
    DOGSLED_STATE: state,
    TMPDIR: caller,
    PATH: `${bin}:${process.env.PATH}`,
  });
  const writeConfig = (ids) =>
    writeFileSync(
      join(home, '.config', 'dogsled', 'config.toml'),
      [
        `remote_command = ${JSON.stringify(peers.remoteCommand)}`,
        '',
        ...ids.map((id) => `[[hosts]]\nid = "${id}"\ntarget = "${id}"\n`),
      ].join('\n'),
    );
  writeConfig(tags);
  const coldCache = () => rmSync(join(state, 'peers'), { recursive: true, force: true });

  const sshTrue = () => {
    const start = process.hrtime.bigint();
    const r = spawnSync(peers.client.ssh, ['-o', 'BatchMode=yes', tags[0], 'true'], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`ssh ${tags[0]} true exited ${r.status}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  /** One `status --json`: its time and how many peers it showed reachable. */
  const status = () => {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [CLI, 'status', '--json'], { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`status --json exited ${r.status}: ${r.stderr}`);
    const hosts = JSON.parse(r.stdout).hosts.filter((h) => !h.local);
    if (hosts.length !== PEERS) throw new Error(`status --json showed ${hosts.length} peers`);
    return { ms, reachable: hosts.filter((h) => h.reachable).length, hosts };
  };

  /** `runs` interleaved rounds of: fresh ssh, cold status, warm status. */
  const rounds = (runs) => {
    const t = { fresh: [], cold: [], warm: [], wait: [] };
    const seen = { cold: [], warm: [] };
    let last;
    for (let i = 0; i < runs; i++) {
      t.fresh.push(sshTrue());
      coldCache();
      const cold = status();
      const warm = status();
      t.cold.push(cold.ms);
      t.warm.push(warm.ms);
      // What the peers cost the cold call: the warm call right after it is the same command without them.
      t.wait.push(cold.ms - warm.ms);
      seen.cold.push(cold.reachable);
      seen.warm.push(warm.reachable);
      last = cold.hosts;
    }
    const m = Object.fromEntries(Object.entries(t).map(([k, xs]) => [k, median(xs)]));
    const max = Object.fromEntries(Object.entries(t).map(([k, xs]) => [k, Math.max(...xs)]));
    return { m, max, seen, last };
  };

  // One read of every peer first: the peers' services have published and their node is warm.
  coldCache();
  status();
  console.error(`measuring: ${RUNS} rounds, all ${PEERS} peers up`);
  const healthy = rounds(RUNS);

  const dead = peers.peer(tags[PEERS - 2]);
  const frozen = peers.peer(tags[PEERS - 1]);
  await dead.sshd.stop();
  await frozen.sshd.freeze();
  console.error(`measuring: ${FAULT_RUNS} rounds, ${dead.alias} stopped, ${frozen.alias} frozen`);
  let faulty;
  try {
    faulty = rounds(FAULT_RUNS);
  } finally {
    await frozen.sshd.thaw();
    await dead.sshd.start();
  }
  const category = (alias) => faulty.last.find((h) => h.id === alias)?.unreachable ?? 'reachable';

  // The service: an open item makes it keep the peer cache fresh (service/daemon/peers/peers-worker.ts).
  const io = { paths: statePaths(state), now: Date.now, warn: () => undefined };
  await ensureStateDir(state);
  await updateItems(io, (current) => ({
    result: undefined,
    next: { ...current, items: [...current.items, itemFixture({ id: 'i_benchopen', host: 'local' })] },
  }));
  const serveEnv = { ...env, ...fixture.env };
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  children.push(idle);
  /** serve's CPU over the window, an idle node's over the same window, and the peer reads it made. */
  const serveCost = async (ids) => {
    writeConfig(ids);
    coldCache();
    const serve = spawn(process.execPath, [CLI, 'serve'], { env: serveEnv, stdio: 'ignore' });
    children.push(serve);
    const reads = new Map(ids.map((id) => [id, new Set()]));
    const sampler = setInterval(() => {
      for (const id of ids) {
        try {
          reads.get(id).add(JSON.parse(readFileSync(join(state, 'peers', `${id}.json`), 'utf8')).read_ms);
        } catch {
          // Not written yet, or being replaced.
        }
      }
    }, 1000);
    try {
      const [own, floor] = await Promise.all([
        residentCost(serve, SECONDS),
        residentCost(idle, SECONDS, 3000),
      ]);
      const open = (await readItems(io)).items.some(
        (item) => item.id === 'i_benchopen' && item.closed_ms === null,
      );
      if (!open)
        throw new Error('the open item was closed during the window: the service stopped reading peers');
      const unreachable = ids.filter((id) => {
        try {
          return JSON.parse(readFileSync(join(state, 'peers', `${id}.json`), 'utf8')).unreachable !== null;
        } catch {
          return true;
        }
      });
      return { own, floor, reads: Math.min(...[...reads.values()].map((s) => s.size)), unreachable };
    } finally {
      clearInterval(sampler);
      await stop(serve);
    }
  };
  console.error(`measuring: serve with ${PEERS} peers for ${SECONDS}s`);
  const withPeers = await serveCost(tags);
  console.error(`measuring: serve with no peers for ${SECONDS}s`);
  const without = await serveCost([]);
  const loadAtEnd = uptime();

  const reached = (counts) =>
    `peers reachable: median ${median(counts)}, fewest ${Math.min(...counts)} of ${PEERS} (a read past the budget is a timeout)`;
  const ratio = (ms, floor) => `${(ms / floor).toFixed(2)}x`;
  console.log(`| ${PEERS} peers (8 sshds on loopback) | median ms | vs fresh \`ssh host true\` | note |`);
  console.log('| --- | ---: | ---: | --- |');
  const row = (name, ms, floor, note) =>
    console.log(`| ${name} | ${ms.toFixed(0)} | ${ratio(ms, floor)} | ${note} |`);
  row('fresh `ssh host true` (floor)', healthy.m.fresh, healthy.m.fresh, 'measured in every round');
  row('`status --json`, cold', healthy.m.cold, healthy.m.fresh, reached(healthy.seen.cold));
  row('`status --json`, warm', healthy.m.warm, healthy.m.fresh, reached(healthy.seen.warm));
  row('fresh `ssh host true`, faults run', faulty.m.fresh, faulty.m.fresh, `${FAULT_RUNS} rounds`);
  row(
    '`status --json`, cold, 1 dead + 1 frozen',
    faulty.m.cold,
    faulty.m.fresh,
    `max ${faulty.max.cold.toFixed(0)} ms; ${dead.alias}: ${category(dead.alias)}, ${frozen.alias}: ${category(frozen.alias)}`,
  );
  row(
    '  of which waiting for peers (cold - warm)',
    faulty.m.wait,
    faulty.m.fresh,
    `${(faulty.m.wait / BUDGET_MS).toFixed(2)}x the ${BUDGET_MS} ms peer budget (max ${(faulty.max.wait / BUDGET_MS).toFixed(2)}x); all up: ${healthy.m.wait.toFixed(0)} ms`,
  );
  row(
    '`status --json`, warm, 1 dead + 1 frozen',
    faulty.m.warm,
    faulty.m.fresh,
    `max ${faulty.max.warm.toFixed(0)} ms (failures cached with a backoff: no read)`,
  );
  console.log('');
  console.log(
    `| \`dogsled serve\` over ${SECONDS} s | CPU % of one core | idle \`node\`, same window | peer reads | RSS MiB |`,
  );
  console.log('| --- | ---: | ---: | --- | ---: |');
  const cpu = (name, r, reads) =>
    console.log(
      `| ${name} | ${r.own.cpuPercent.toFixed(2)} | ${r.floor.cpuPercent.toFixed(2)} | ${reads} | ${r.own.rssMiB.toFixed(0)} |`,
    );
  cpu(
    `${PEERS} peers, one open item`,
    withPeers,
    `>= ${withPeers.reads} per peer${withPeers.unreachable.length ? ` (unreachable at the end: ${withPeers.unreachable.join(', ')})` : ''}`,
  );
  cpu('no peers, one open item', without, 'none');
  console.log(`\nload at start: ${loadAtStart}\nload at end:   ${loadAtEnd}`);
} finally {
  for (const child of children) await stop(child);
  fixture.stop();
  await peers.stop();
  rmSync(caller, { recursive: true, force: true, maxRetries: 3 });
}
