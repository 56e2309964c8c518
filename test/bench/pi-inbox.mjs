// Send-to-delivery latency for a Pi reader: `dogsled send` from one pane of the fake Herdr until the
// built Pi extension (in the fake Pi host, its own process in another pane) hands the message to Pi,
// against `node -e 0` (the floor every dogsled process pays), interleaved. The reader watches its
// inbox file, so the latency is the send itself plus one `inbox claim`. Needs the built CLI and
// extension (`npm run bench` builds them). BENCH_RUNS shortens it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CLI, call, median, ROOT } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const FAKE = join(ROOT, 'test', 'fakes', 'herdr');
const EXTENSION = join(ROOT, 'plugins', 'pi', 'dist', 'index.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function sentEvents(log) {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
    .filter((event) => event.kind === 'sent');
}

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-pi-'));
let server;
let pi;
try {
  const home = join(work, 'home');
  const state = join(work, 'state');
  mkdirSync(state, { recursive: true, mode: 0o700 });
  mkdirSync(home, { recursive: true });
  const socketPath = join(work, 'h.sock');
  const base = { ...process.env, HOME: home, DOGSLED_STATE: state };
  for (const key of Object.keys(base)) if (/^(HERDR_|DOGSLED_TEST|XDG_)/.test(key)) delete base[key];
  server = spawn(process.execPath, [join(FAKE, 'server.mjs'), '--socket', socketPath], {
    env: { ...base, XDG_CONFIG_HOME: join(work, 'config'), XDG_STATE_HOME: join(work, 'xdg') },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    if (await call(socketPath, 'ping').catch(() => undefined)) break;
    if (i > 300) throw new Error('fake herdr did not start');
    await sleep(20);
  }
  const pane = async () => (await call(socketPath, 'workspace.create', { cwd: home })).result.root_pane;
  const lead = await pane();
  const child = await pane();
  const herdrEnv = { ...base, HERDR_SOCKET_PATH: socketPath, HERDR_ENV: '1' };
  const host = join(work, 'pi-host.mjs');
  await build({
    entryPoints: [join(ROOT, 'test', 'fakes', 'pi-api', 'host.ts')],
    outfile: host,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  const log = join(work, 'pi.jsonl');
  pi = spawn(process.execPath, [host, EXTENSION, log], {
    env: { ...herdrEnv, HERDR_PANE_ID: child.pane_id, DOGSLED_BIN: CLI },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const inbox = join(state, 'inbox', `${child.terminal_id}.json`);
  for (let i = 0; ; i++) {
    try {
      if (JSON.parse(readFileSync(inbox, 'utf8')).reader?.harness === 'pi') break;
    } catch {}
    if (i > 1000) throw new Error('the Pi reader did not register');
    await sleep(20);
  }
  const asLead = { ...herdrEnv, HERDR_PANE_ID: lead.pane_id };

  const floorRun = () => {
    const start = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { env: base, stdio: 'ignore' });
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const deliver = async (n) => {
    const start = Date.now();
    const sent = spawnSync(process.execPath, [CLI, 'send', child.pane_id, '--message', `bench ${n}`], {
      env: asLead,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (sent.status !== 0) throw new Error(`send exited ${sent.status}: ${sent.stderr}`);
    for (;;) {
      const event = sentEvents(log).find(
        (e) => e.message.content.includes(`bench ${n}\n`) || e.message.content.endsWith(`bench ${n}`),
      );
      if (event) return event.at_ms - start;
      await sleep(2);
    }
  };
  const floor = [];
  const latency = [];
  for (let i = 0; i < 2; i++) {
    floorRun();
    await deliver(`warm${i}`);
  }
  for (let i = 0; i < RUNS; i++) {
    floor.push(floorRun());
    latency.push(await deliver(i));
  }
  const f = median(floor);
  const l = median(latency);
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${RUNS} runs each.\n`,
  );
  console.log('| Pi reader                        | median wall | vs `node -e 0` |');
  console.log('| -------------------------------- | ----------: | -------------: |');
  console.log(`| \`node -e 0\` (floor)              | ${f.toFixed(1).padStart(8)} ms |          1.00× |`);
  console.log(
    `| \`dogsled send\` to Pi's message   | ${l.toFixed(1).padStart(8)} ms | ${(l / f).toFixed(2).padStart(13)}× |`,
  );
} finally {
  pi?.kill('SIGKILL');
  server?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
