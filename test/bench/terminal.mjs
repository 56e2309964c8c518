// The terminal port's Herdr calls: one `pane.list` over the socket (the adapter's normal path)
// against one `herdr pane list` CLI spawn (the fallback), both against the fake Herdr, interleaved
// so drift hits both alike. Prints medians and their ratio as a markdown table. BENCH_RUNS shortens it.
// Standalone: bundles service/terminal with esbuild into a temp dir, so no prior build is needed.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { bundleTerminal, median, ping, RUNS, ROOT as root, timed } from './lib.mjs';

const FAKE = join(root, 'test', 'fakes', 'herdr');
const run = promisify(execFile);

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-terminal-'));
let server;
try {
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const socketPath = join(work, 'h.sock');
  const env = { PATH: `${join(FAKE, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home };
  // The server exits when its stdin pipe closes, so it never outlives this script.
  server = spawn(process.execPath, [join(FAKE, 'server.mjs'), '--socket', socketPath, '--settle-ms', '50'], {
    env: { ...env, XDG_CONFIG_HOME: join(work, 'config'), XDG_STATE_HOME: join(work, 'state') },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  for (let i = 0; !(await ping(socketPath)); i++) {
    if (i > 300) throw new Error('fake herdr did not start');
    await new Promise((r) => setTimeout(r, 20));
  }

  const openTerminal = await bundleTerminal(work);
  const hostEnv = { ...env, HERDR_SOCKET_PATH: socketPath, HERDR_ENV: '1' };
  const port = await openTerminal({ env: hostEnv, home });
  if (port.kind !== 'herdr-socket')
    throw new Error(`expected the socket backend, got ${port.kind}: ${port.why}`);
  // A realistic answer: a few panes, so both paths serialise and parse the same records.
  const created = await port.createWorkspace({ cwd: work });
  await port.splitPane({ targetPaneId: created.root_pane.pane_id, direction: 'right' });
  await port.createTab({ workspaceId: created.workspace.workspace_id, cwd: work });

  const herdr = join(FAKE, 'bin', 'herdr');
  const viaSocket = () => port.listPanes();
  const viaCli = () => run(herdr, ['pane', 'list'], { env: hostEnv });
  for (let i = 0; i < 3; i++) {
    await viaSocket();
    await viaCli();
  }
  const socketMs = [];
  const cliMs = [];
  for (let i = 0; i < RUNS; i++) {
    socketMs.push(await timed(viaSocket));
    cliMs.push(await timed(viaCli));
  }
  const socket = median(socketMs);
  const cli = median(cliMs);

  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${RUNS} runs each.\n`,
  );
  console.log('| Herdr call (fake Herdr, 3 panes) | median wall | vs socket |');
  console.log('|---|---:|---:|');
  console.log(`| \`pane.list\` over the socket (terminal port) | ${socket.toFixed(2)} ms | 1.00× |`);
  console.log(`| \`herdr pane list\` CLI spawn | ${cli.toFixed(2)} ms | ${(cli / socket).toFixed(1)}× |`);
} finally {
  server?.stdin?.end();
  server?.kill('SIGTERM');
  if (server && server.exitCode === null) await new Promise((r) => server.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
