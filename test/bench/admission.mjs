// `node test/bench/admission.mjs`: the cost of FIFO admission decisions as the queue grows to 1,000
// tickets, to show it is linear, not quadratic. Three measures at 10, 100 and 1,000 pending tickets:
//   1. per decision: one planAdmissions pass over 4 hosts with room for every ticket (a quarter
//      pinned), divided by the tickets it decides. Flat when a pass is linear; x100 from 10 to 1,000
//      if each decision looked at every earlier ticket.
//   2. a pass behind a full fleet: what every pass costs while nothing fits (it should not grow with
//      the queue beyond a cheap scan for pins that name no host).
//   3. the worker's pass: read and validate queue.json, FIFO order, plan, with room for 5.
// The service modules are bundled with esbuild on the fly. BENCH_RUNS sets the repetitions (median).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median, ROOT } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const SIZES = [10, 100, 1000];
const GIB = 1024 ** 3;
const NOW = 1_900_000_000_000;

const outdir = join(ROOT, 'node_modules', '.cache', 'dogsled-bench-admission');
mkdirSync(outdir, { recursive: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: {
    admission: 'service/core/placement/admission-order.ts',
    tickets: 'service/core/placement/tickets.ts',
    work: 'service/state/records/queue-items.ts',
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Resolved from the repository's node_modules at run time (the bundle lives under it).
  packages: 'external',
  logLevel: 'error',
});
const load = (name) => import(pathToFileURL(join(outdir, `${name}.mjs`)).href);
const { planAdmissions } = await load('admission');
const { pendingInOrder } = await load('tickets');
const { readQueue, updateQueue } = await load('work');

const policy = {
  free_core_fraction_min: 0.25,
  memory_reserve_bytes: GIB,
  disk_free_min_percent: 15,
  reservation_load: 1,
  reservation_ttl_ms: 90_000,
};

/** A host with room for exactly `room` more reservations (cores/4 must stay free). */
function host(id, room) {
  const cores = 4 * (room + 1);
  return {
    id,
    label: `label-${id}`,
    facts: {
      id,
      service: 'up',
      // Eligible while free cores (cores - reservations) stay at or above cores / 4, before each admission.
      reservations: cores - cores / 4 - room + 1,
      measure: {
        sample_ms: NOW - 1_000,
        os: 'linux',
        cores,
        busy: 0,
        memory_total_bytes: 100_000 * GIB,
        memory_free_bytes: 100_000 * GIB,
        disk_total_bytes: 1000 * GIB,
        disk_free_bytes: 500 * GIB,
        pressure_level: null,
        live_agents: 0,
        active_agents: 0,
      },
    },
  };
}

function ticket(i, pin = null) {
  return {
    id: `t_${String(i).padStart(12, '0')}`,
    kind: 'job',
    created_ms: NOW - 1_000_000 + i,
    owner: `w1:p${i % 7}`,
    pin,
    request: {
      command: ['make', 'test'],
      cwd: '/tmp',
      timeout_ms: null,
      idle_timeout_ms: null,
      caller_workspace: null,
    },
    waiting: false,
    state: 'pending',
    state_ms: NOW - 1_000_000 + i,
    admitter: null,
    host: null,
    reservation: null,
    job: null,
    item: null,
    error: null,
    notice: null,
  };
}

const hostIds = ['alpha', 'beta', 'gamma', 'delta'];
/** n tickets in FIFO order; every fourth is pinned to one of the hosts. */
const queueOf = (n) => Array.from({ length: n }, (_, i) => ticket(i, i % 4 === 0 ? hostIds[i % 3] : null));

function time(fn) {
  const samples = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

async function timeAsync(fn) {
  const samples = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

// Warm the JIT on every size first, so the smallest size is not measured cold.
for (let round = 0; round < 200; round++) {
  for (const n of SIZES) {
    const tickets = queueOf(n);
    for (const room of [n, 0])
      planAdmissions(
        tickets,
        hostIds.map((id) => host(id, room)),
        policy,
        NOW,
      );
  }
}

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-admission-'));
const rows = [];
try {
  for (const n of SIZES) {
    const tickets = queueOf(n);
    // Warm the JIT on this shape before measuring.
    for (let i = 0; i < 20; i++)
      planAdmissions(
        tickets,
        hostIds.map((id) => host(id, n)),
        policy,
        NOW,
      );

    const roomy = hostIds.map((id) => host(id, n));
    let decided = 0;
    const allMs = time(() => {
      decided = planAdmissions(tickets, roomy, policy, NOW).length;
    });
    if (decided !== n) throw new Error(`expected ${n} admissions, got ${decided}`);

    const full = hostIds.map((id) => host(id, 0));
    const fullMs = time(() => planAdmissions(tickets, full, policy, NOW));

    const dir = join(work, String(n));
    mkdirSync(dir);
    const io = { paths: { queue: join(dir, 'queue.json') }, now: () => NOW, warn: () => undefined };
    await updateQueue(io, () => ({ result: undefined, next: { version: 1, tickets } }));
    const five = hostIds.map((id) => host(id, id === 'alpha' ? 5 : 0));
    let admitted = 0;
    for (let i = 0; i < 10; i++) await readQueue(io);
    const passMs = await timeAsync(async () => {
      const queue = await readQueue(io);
      const steps = planAdmissions(pendingInOrder(queue.tickets), five, policy, NOW);
      admitted = steps.filter((step) => step.kind === 'admit').length;
    });
    if (admitted !== 5) throw new Error(`expected 5 admissions from the worker pass, got ${admitted}`);
    rows.push({ n, perDecisionMs: allMs / n, passAllMs: allMs, fullPassMs: fullMs, workerPassMs: passMs });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const fmt = (ms) => (ms < 0.01 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(3)} ms`);
console.log(`admission decisions (median of ${RUNS}; 4 hosts, a quarter of the tickets pinned)`);
console.log(
  'tickets  per decision   pass (room for all)  pass (fleet full)  worker pass (read+plan, room 5)',
);
for (const r of rows) {
  console.log(
    `${String(r.n).padStart(7)}  ${fmt(r.perDecisionMs).padStart(12)}   ${fmt(r.passAllMs).padStart(18)}  ` +
      `${fmt(r.fullPassMs).padStart(17)}  ${fmt(r.workerPassMs).padStart(14)}`,
  );
}
const first = rows[0];
const last = rows.at(-1);
const growth = last.n / first.n;
console.log(
  `per decision, ${last.n} vs ${first.n} tickets: x${(last.perDecisionMs / first.perDecisionMs).toFixed(2)} ` +
    `(linear passes keep it near x1; quadratic ones would make it x${growth})`,
);
console.log(
  `worker pass, ${last.n} vs ${first.n} tickets: x${(last.workerPassMs / first.workerPassMs).toFixed(1)} ` +
    `(queue.json grows x${growth}; quadratic would be x${growth * growth})`,
);
