// `node test/bench/fleet.mjs`: the fleet as a caller sees it, over 8 real peers (8 private sshds on
// loopback, one user each, every peer running this build's `dogsled serve` on an idle fixture /proc):
//   0. two peers (the issue's case): `status --json` cold and warm against one fresh `ssh host true`
//      measured interleaved, first with no service on the caller (each peer one OpenSSH call and a
//      Node start there), then with the caller's `dogsled serve` running (its pooled connections
//      read the peers for the command, over peer-read.sock); BENCH_FLEET_TWO_ONLY=1 stops after it;
//   1. `status --json` cold (no peer cache: every peer read fresh over OpenSSH) and warm (the cache
//      younger than 10 s), each against one fresh `ssh host true` measured interleaved in the run;
//   2. the same with one peer dead (its sshd stopped) and one frozen (SIGSTOP), against the peer
//      budget too: a dead or hung peer must not hold a caller past it;
//   3. the service's CPU (utime+stime from /proc/PID/stat, % of one core) over BENCH_SECONDS while it
//      owns an open item (so it keeps all 8 peers fresh over its ssh2 pool), against an idle `node`
//      over the same window; then the same service with no peers configured.
// Needs root (it makes users and sshds); says why and exits 0 otherwise. BENCH_RUNS sets the runs.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, idleProc, loadBundled, median, ROOT, RUNS, residentCost, SECONDS, stop } from './lib.mjs';

const TWO_ONLY = process.env.BENCH_FLEET_TWO_ONLY === '1';
const PEERS = TWO_ONLY ? 2 : 8;
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

  const bin = join(caller, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(peers.client.ssh, join(bin, 'ssh'));
  const baseEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(DOGSLED_|HERDR_|XDG_|TMUX)/.test(key) || key === 'CI' || key === 'NO_COLOR') continue;
    baseEnv[key] = value;
  }
  /** A caller of its own (home, state, config listing `ids`): its env, state dir and config writer. */
  const makeCaller = (name, ids) => {
    const home = join(caller, name, 'home');
    const state = join(caller, name, 'state');
    mkdirSync(join(home, '.config', 'dogsled'), { recursive: true });
    const env = {
      ...baseEnv,
      HOME: home,
      DOGSLED_STATE: state,
      TMPDIR: caller,
      PATH: `${bin}:${process.env.PATH}`,
    };
    const writeConfig = (list) =>
      writeFileSync(
        join(home, '.config', 'dogsled', 'config.toml'),
        [
          `remote_command = ${JSON.stringify(peers.remoteCommand)}`,
          '',
          ...list.map((id) => `[[hosts]]\nid = "${id}"\ntarget = "${id}"\n`),
        ].join('\n'),
      );
    writeConfig(ids);
    return {
      env,
      state,
      writeConfig,
      coldCache: () => rmSync(join(state, 'peers'), { recursive: true, force: true }),
    };
  };

  const sshTrue = () => {
    const start = process.hrtime.bigint();
    const r = spawnSync(peers.client.ssh, ['-o', 'BatchMode=yes', tags[0], 'true'], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`ssh ${tags[0]} true exited ${r.status}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  /** One `status --json` of `who`: its time and how many of its `count` peers it showed reachable. */
  const status = (who, count) => {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [CLI, 'status', '--json'], { env: who.env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`status --json exited ${r.status}: ${r.stderr}`);
    const hosts = JSON.parse(r.stdout).hosts.filter((h) => !h.local);
    if (hosts.length !== count) throw new Error(`status --json showed ${hosts.length} peers`);
    return { ms, reachable: hosts.filter((h) => h.reachable).length, hosts };
  };

  /** `runs` interleaved rounds of: fresh ssh, cold status, warm status. */
  const rounds = (who, count, runs) => {
    const t = { fresh: [], cold: [], warm: [], wait: [] };
    const seen = { cold: [], warm: [] };
    let last;
    for (let i = 0; i < runs; i++) {
      t.fresh.push(sshTrue());
      who.coldCache();
      const cold = status(who, count);
      const warm = status(who, count);
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
  const reached = (counts, count) =>
    `peers reachable: median ${median(counts)}, fewest ${Math.min(...counts)} of ${count} (a read past the budget is a timeout)`;
  const ratio = (ms, floor) => `${(ms / floor).toFixed(2)}x`;
  const row = (name, ms, floor, note) =>
    console.log(`| ${name} | ${ms.toFixed(0)} | ${ratio(ms, floor)} | ${note} |`);

  /**
   * CPU (ms) of a process and every live one under it, each with what it reaped: on the peers' sshds
   * that is every session, ssh's server side and the dogsled it started there, ended or not.
   */
  const treeCpuMs = (root) => {
    const procs = new Map();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
        procs.set(Number(name), {
          ppid: Number(f[1]),
          ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
        });
      } catch {
        // Gone since the listing.
      }
    }
    const sum = (pid) => {
      let ticks = procs.get(pid)?.ticks ?? 0;
      for (const [child, p] of procs) if (p.ppid === pid) ticks += sum(child);
      return ticks;
    };
    return sum(root) * 10;
  };
  /** This process's reaped children (every command and ssh it ran) and the trees of `roots`. */
  const cpuNowMs = (roots) => {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) * 10 + roots.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
  };

  // 0. The issue's case: two peers, cold and warm, without and with a service on the caller.
  const pair = tags.slice(0, 2);
  const sshds = pair.map((tag) => peers.peer(tag).sshd.pid());
  /** rounds(), with the CPU each round cost this host, the peers' sshds (and all under them) and `extra`. */
  const cpuRounds = async (extra) => {
    const before = cpuNowMs([...sshds, ...extra]);
    const r = rounds(two, 2, RUNS);
    // Sessions end (and are reaped) a moment after their client.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { ...r, cpuMs: (cpuNowMs([...sshds, ...extra]) - before) / RUNS };
  };
  const two = makeCaller('two', pair);
  two.coldCache();
  status(two, 2);
  // BENCH_HOLD=FILE: the two-peer caller's environment written there as shell lines, everything kept
  // up until SIGINT, for profiling a command by hand against the same peers.
  if (process.env.BENCH_HOLD) {
    const q = (v) => `'${String(v).replaceAll("'", "'\\''")}'`;
    const lines = Object.entries(two.env)
      .filter(([k]) => /^(HOME|DOGSLED_|TMPDIR$|PATH$)/.test(k))
      .map(([k, v]) => `export ${k}=${q(v)}`);
    lines.push(
      `SSH=${q(peers.client.ssh)}`,
      `PEERS=${q(pair.join(' '))}`,
      `FIXTURE_ENV=${q(JSON.stringify(fixture.env))}`,
    );
    writeFileSync(process.env.BENCH_HOLD, `${lines.join('\n')}\n`);
    console.error(`holding; environment in ${process.env.BENCH_HOLD}; SIGINT ends`);
    await new Promise((r) => process.once('SIGINT', r));
  }
  console.error(`measuring: ${RUNS} rounds, 2 peers, no service on the caller`);
  const alone = await cpuRounds([]);
  const twoServe = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...two.env, ...fixture.env },
    stdio: 'ignore',
  });
  children.push(twoServe);
  // Published once (host.json): the service is up. A build without peer-read.sock measures the same
  // case with the command reading its peers itself, which is what "before" was.
  const sock = join(two.state, 'peer-read.sock');
  for (let i = 0; i < 300 && !(existsSync(join(two.state, 'host.json')) && existsSync(sock)); i++) {
    if (i > 50 && existsSync(join(two.state, 'host.json'))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!existsSync(join(two.state, 'host.json')))
    throw new Error("the caller's service did not publish in 30 s");
  const relay = existsSync(sock);
  // The first read through the service opens its pooled connections; the rounds find them open.
  two.coldCache();
  status(two, 2);
  console.error(`measuring: ${RUNS} rounds, 2 peers, the caller's service running`);
  const pooled = await cpuRounds([twoServe.pid]);
  await stop(twoServe);
  console.log('| 2 peers (2 sshds on loopback) | median ms | vs fresh `ssh host true` | note |');
  console.log('| --- | ---: | ---: | --- |');
  row(
    'fresh `ssh host true` (floor), no-service run',
    alone.m.fresh,
    alone.m.fresh,
    'measured in every round',
  );
  row('`status --json`, cold, no service here', alone.m.cold, alone.m.fresh, reached(alone.seen.cold, 2));
  row('`status --json`, warm, no service here', alone.m.warm, alone.m.fresh, reached(alone.seen.warm, 2));
  row(
    'fresh `ssh host true` (floor), service run',
    pooled.m.fresh,
    pooled.m.fresh,
    'measured in every round',
  );
  row(
    '`status --json`, cold, `serve` running here',
    pooled.m.cold,
    pooled.m.fresh,
    `${reached(pooled.seen.cold, 2)}; ${relay ? "read through the service's pool" : 'no peer-read.sock: read by the command itself'} (max ${pooled.max.cold.toFixed(0)} ms)`,
  );
  row(
    '`status --json`, warm, `serve` running here',
    pooled.m.warm,
    pooled.m.fresh,
    reached(pooled.seen.warm, 2),
  );
  console.log(
    `\nCPU per round (one fresh ssh, one cold and one warm status), this host's commands, ssh and service with the peers' sshds and all under them: ${alone.cpuMs.toFixed(0)} ms with no service here, ${pooled.cpuMs.toFixed(0)} ms with \`serve\` running here\n`,
  );

  if (!TWO_ONLY) {
    // Every peer, with no service on this caller: each one read through its own OpenSSH call.
    const eight = makeCaller('eight', tags);
    const { state, writeConfig, coldCache } = eight;
    // One read of every peer first: the peers' services have published and their node is warm.
    coldCache();
    status(eight, PEERS);
    console.error(`measuring: ${RUNS} rounds, all ${PEERS} peers up`);
    const healthy = rounds(eight, PEERS, RUNS);

    const dead = peers.peer(tags[PEERS - 2]);
    const frozen = peers.peer(tags[PEERS - 1]);
    await dead.sshd.stop();
    await frozen.sshd.freeze();
    console.error(`measuring: ${FAULT_RUNS} rounds, ${dead.alias} stopped, ${frozen.alias} frozen`);
    let faulty;
    try {
      faulty = rounds(eight, PEERS, FAULT_RUNS);
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
    const serveEnv = { ...eight.env, ...fixture.env };
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

    console.log(
      `| ${PEERS} peers (8 sshds on loopback, no service on the caller) | median ms | vs fresh \`ssh host true\` | note |`,
    );
    console.log('| --- | ---: | ---: | --- |');
    row('fresh `ssh host true` (floor)', healthy.m.fresh, healthy.m.fresh, 'measured in every round');
    row('`status --json`, cold', healthy.m.cold, healthy.m.fresh, reached(healthy.seen.cold, PEERS));
    row('`status --json`, warm', healthy.m.warm, healthy.m.fresh, reached(healthy.seen.warm, PEERS));
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
  }
  console.log(`\nload at start: ${loadAtStart}\nload at end:   ${uptime()}`);
} finally {
  for (const child of children) await stop(child);
  fixture.stop();
  await peers.stop();
  rmSync(caller, { recursive: true, force: true, maxRetries: 3 });
}
