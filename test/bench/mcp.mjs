// `dogsled mcp` start-up: from spawning the server until its answer to the first request
// (`initialize`) is read, and until its first tool answer (`status`), against `node -e 0`,
// interleaved so drift hits all alike; and the first `status` call's own round trip, sent as a
// client sends it: after `tools/list`, 100 ms later (the server warms the call meanwhile), beside a
// second call's, sent once the first is answered: what a call costs once everything is warm, the
// floor the first call is held to. Needs the built CLI (`npm run bench` builds it). BENCH_RUNS
// shortens it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, median, RUNS } from './lib.mjs';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const STATUS = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'status', arguments: {} } };
const LIST = { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} };
const AGAIN = { ...STATUS, id: 4 };

/** Milliseconds from spawn to the `initialize` answer and to the `status` answer, and each call's. */
function session(env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const at = () => Number(process.hrtime.bigint() - start) / 1e6;
    const child = spawn(process.execPath, [CLI, 'mcp'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const times = {};
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          times.initialize = at();
          child.stdin.write(`${JSON.stringify(INITIALIZED)}\n${JSON.stringify(LIST)}\n`);
        } else if (message.id === 3) {
          setTimeout(() => {
            times.sent = at();
            child.stdin.write(`${JSON.stringify(STATUS)}\n`);
          }, 100);
        } else if (message.id === 2) {
          if (message.result?.isError) reject(new Error(message.result.content[0].text));
          times.status = at();
          times.call = times.status - times.sent;
          child.stdin.write(`${JSON.stringify(AGAIN)}\n`);
        } else if (message.id === 4) {
          if (message.result?.isError) reject(new Error(message.result.content[0].text));
          times.again = at() - times.status;
          child.stdin.end();
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 && times.again ? resolve(times) : reject(new Error(`mcp exited ${code}`)),
    );
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
  });
}

function floor(env) {
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-mcp-'));
try {
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home, DOGSLED_STATE: join(work, 'state') };
  for (const key of Object.keys(env)) if (/^(HERDR_|DOGSLED_TEST|XDG_)/.test(key)) delete env[key];
  await session(env);
  const nodes = [];
  const inits = [];
  const statuses = [];
  const calls = [];
  const agains = [];
  for (let i = 0; i < RUNS; i++) {
    nodes.push(floor(env));
    const { initialize, status, call, again } = await session(env);
    inits.push(initialize);
    statuses.push(status);
    calls.push(call);
    agains.push(again);
  }
  const base = median(nodes);
  const row = (name, ms) =>
    `| ${name.padEnd(38)} | ${ms.toFixed(1).padStart(8)} ms | ${(ms / base).toFixed(2).padStart(5)}× |`;
  console.log(`\ndogsled mcp start-up (${RUNS} runs each, interleaved)\n`);
  console.log('| from spawn until                       | median wall | vs `node -e 0` |');
  console.log('| -------------------------------------- | ----------: | -------------: |');
  console.log(row('`node -e 0` exits (floor)', base));
  console.log(row('the `initialize` answer', median(inits)));
  console.log(row('the first tool answer (`status`)', median(statuses) - 100));
  console.log(
    `\nThe first \`status\` call's round trip, once initialized: ${median(calls).toFixed(1)} ms (median; budget 5 ms);` +
      ` the second call's, right after it: ${median(agains).toFixed(1)} ms.`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
