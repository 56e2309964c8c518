// The tmux backend against the Herdr socket: the same port call (`listPanes`, three panes each) on a
// private tmux server and on the fake Herdr's socket, and the floor under every tmux call, a bare
// `tmux display-message` spawn, interleaved so drift hits all alike. Prints medians and ratios as a
// markdown table. BENCH_RUNS shortens it. Standalone: bundles service/terminal with esbuild.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { bundleTerminal, median, ping, RUNS, ROOT as root, timed } from './lib.mjs';

const FAKE = join(root, 'test', 'fakes', 'herdr');
const run = promisify(execFile);

const work = mkdtempSync(join(tmpdir(), 'dogsled-bench-tmux-'));
let server;
const tmuxSocket = join(work, 'tmux.sock');
try {
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const socketPath = join(work, 'h.sock');
  const env = { PATH: `${join(FAKE, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home };
  server = spawn(process.execPath, [join(FAKE, 'server.mjs'), '--socket', socketPath, '--settle-ms', '50'], {
    env: { ...env, XDG_CONFIG_HOME: join(work, 'config'), XDG_STATE_HOME: join(work, 'state') },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  for (let i = 0; !(await ping(socketPath)); i++) {
    if (i > 300) throw new Error('fake herdr did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const tmuxEnv = { ...env, TMUX_TMPDIR: work };
  await run(
    'tmux',
    ['-S', tmuxSocket, '-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '200', '-y', '50'],
    {
      env: tmuxEnv,
    },
  );
  const pid = (
    await run('tmux', ['-S', tmuxSocket, 'display-message', '-p', '#{pid}'], { env: tmuxEnv })
  ).stdout.trim();

  const openTerminal = await bundleTerminal(work);
  const herdrPort = await openTerminal({
    env: { ...env, HERDR_SOCKET_PATH: socketPath, HERDR_ENV: '1' },
    home,
  });
  const tmuxPort = await openTerminal({ env: { ...tmuxEnv, TMUX: `${tmuxSocket},${pid},0` }, home });
  if (herdrPort.kind !== 'herdr-socket' || tmuxPort.kind !== 'tmux') {
    throw new Error(`expected herdr-socket and tmux, got ${herdrPort.kind} and ${tmuxPort.kind}`);
  }
  // The same three panes on both: a workspace split once, and a second tab.
  for (const port of [herdrPort, tmuxPort]) {
    const created = await port.createWorkspace({ cwd: work });
    await port.splitPane({ targetPaneId: created.root_pane.pane_id, direction: 'right' });
    await port.createTab({ workspaceId: created.workspace.workspace_id, cwd: work });
  }
  await run('tmux', ['-S', tmuxSocket, 'kill-session', '-t', 'bench'], { env: tmuxEnv });

  const calls = {
    floor: () => run('tmux', ['-S', tmuxSocket, 'display-message', '-p', 'x'], { env: tmuxEnv }),
    tmux: () => tmuxPort.listPanes(),
    herdr: () => herdrPort.listPanes(),
  };
  const times = { floor: [], tmux: [], herdr: [] };
  for (let i = 0; i < 3; i++) for (const call of Object.values(calls)) await call();
  for (let i = 0; i < RUNS; i++) {
    for (const [name, call] of Object.entries(calls)) times[name].push(await timed(call));
  }
  const floor = median(times.floor);
  const herdr = median(times.herdr);
  const tmux = median(times.tmux);
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${RUNS} runs each.\n`,
  );
  console.log('| terminal call (3 panes) | median wall | vs `tmux` spawn | vs Herdr socket |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| bare \`tmux display-message\` spawn (floor) | ${floor.toFixed(2)} ms | 1.00× | ${(floor / herdr).toFixed(2)}× |`,
  );
  console.log(
    `| \`listPanes\` on tmux (one \`list-panes -a\`) | ${tmux.toFixed(2)} ms | ${(tmux / floor).toFixed(2)}× | ${(tmux / herdr).toFixed(2)}× |`,
  );
  console.log(
    `| \`listPanes\` on the fake Herdr socket | ${herdr.toFixed(2)} ms | ${(herdr / floor).toFixed(2)}× | 1.00× |`,
  );
} finally {
  await run('tmux', ['-S', tmuxSocket, 'kill-server']).catch(() => undefined);
  server?.stdin?.end();
  server?.kill('SIGTERM');
  if (server && server.exitCode === null) await new Promise((r) => server.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
