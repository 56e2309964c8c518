// The lean hooks (cli/hot/hook-lean.ts, service/inbox/pending-glance.ts) answer `hook inbox`, `hook
// context`, `hook gate` and `hook state` when nothing is pending, reading their files by hand. Each
// case runs the CLI from a pane of the fake Herdr and, on the same state (restored in between), the
// full hook bundle itself (dist/hot/hook.cjs, what main.ts runs when the lean one does not answer):
// stdout, exit status and every state file afterwards must be the same, byte for byte, and
// DOGSLED_TIMING's marks say which bundle answered. The cases the lean path must not answer (a
// record to deliver, work of the owner, a file it doubts...) are shown to fall back.

import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseFast } from '../../../cli/fast-path.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { CLI, ROOT, runNode, spawnNode, timingSplit } from '../../helpers/cli.js';
import { stopInLock, stoppedItself } from '../../helpers/frozen-lock.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import { moduleProbe } from '../../helpers/module-probe.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { mkfifo, restoreState, stateFiles, stateTexts } from '../../helpers/state-files.js';

const NOW = 1_900_000_000_000;
const FULL_HOOK = join(ROOT, 'dist', 'hot', 'hook.cjs');

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
let lock: ServiceLock;
/** The state every case starts from (the service lock aside, which the test holds). */
let baseline: Map<string, Buffer>;

const STOP = ['inbox', '--harness', 'claude', '--event', 'Stop'];
const PROMPT = ['inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'];
const CONTEXT = ['context', '--harness', 'claude', '--event', 'UserPromptSubmit'];
const STATE = ['state', '--harness', 'claude', '--event', 'Notification'];
const GATE = ['gate'];
const STOP_INPUT = { hook_event_name: 'Stop', stop_hook_active: false };
const PROMPT_INPUT = { hook_event_name: 'UserPromptSubmit', prompt: 'go on' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The hot bundles compiled, in order: ['hook-lean'] when the lean one answered. */
  bundles: string[];
  /** Every file of the state dir afterwards (code caches and the service lock aside). */
  files: Record<string, string>;
}

const stateFilesNow = () => stateFiles(t.box.state);
const restore = (saved: Map<string, Buffer>) => restoreState(t.box.state, saved);

function envFor(pane: PaneRef, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return t.envOf(pane, { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: String(NOW), ...extra });
}

async function spawned(
  argv: string[],
  env: NodeJS.ProcessEnv,
  input: string,
): Promise<Omit<Run, 'files' | 'bundles'>> {
  const { code, stdout, stderr } = await runNode(argv, env, { cwd: t.box.home, input, timeoutMs: 60_000 });
  return { code, stdout, stderr };
}

async function finished(run: Omit<Run, 'files' | 'bundles'>): Promise<Run> {
  return { ...run, ...timingSplit(run.stderr), files: await stateTexts(t.box.state) };
}

/** The CLI as a harness runs it: the lean bundle first. */
async function viaCli(pane: PaneRef, args: string[], input: object, extra: NodeJS.ProcessEnv = {}) {
  const env = envFor(pane, { DOGSLED_TIMING: '1', ...extra });
  return finished(await spawned([CLI, 'hook', ...args], env, JSON.stringify(input)));
}

/** The full hook bundle, with the flags main.ts would give it. */
async function viaFull(pane: PaneRef, args: string[], input: object, extra: NodeJS.ProcessEnv = {}) {
  const flags = parseFast(['hook', ...args])?.flags;
  const script =
    'require(process.argv[1]).run(JSON.parse(process.argv[2])).then((c) => { process.exitCode = c; })';
  const run = await spawned(
    ['-e', script, FULL_HOOK, JSON.stringify(flags)],
    envFor(pane, extra),
    JSON.stringify(input),
  );
  return finished(run);
}

/** Both on the same state; returns the CLI's run after checking it matches the full hook's. */
async function compare(pane: PaneRef, args: string[], input: object, extra: NodeJS.ProcessEnv = {}) {
  const before = await stateFilesNow();
  const full = await viaFull(pane, args, input, extra);
  await restore(before);
  const lean = await viaCli(pane, args, input, extra);
  expect({ code: lean.code, stdout: lean.stdout, stderr: lean.stderr }).toEqual({
    code: full.code,
    stdout: full.stdout,
    stderr: full.stderr,
  });
  expect(lean.files).toEqual(full.files);
  return lean;
}

beforeAll(async () => {
  ({ t, lead, child } = await inboxPair());
  await writeSnapshot(t.box.state, snapshotFixture({ sample_ms: NOW - 2_000, cores: 8, busy: 0.25 }));
  lock = await holdServiceLock(t.box.state);
  // The child's reader registered and its terminal remembered, as after its first prompt.
  await registerClaude(t, child);
  baseline = await stateFilesNow();
}, 60_000);

afterAll(async () => {
  await lock?.release();
  await t?.close();
});

beforeEach(async () => {
  await restore(baseline);
});

const LEAN = ['hook-lean'];
const FELL_BACK = ['hook-lean', 'hook'];
// The prompt context answers from a lean bundle of its own (it reads config.toml and renders).
const LEAN_CONTEXT = ['hook-context-lean'];
const CONTEXT_FELL_BACK = ['hook-context-lean', 'hook'];
const leanFor = (args: string[]) => (args[0] === 'context' ? LEAN_CONTEXT : LEAN);
const fellBackFor = (args: string[]) => (args[0] === 'context' ? CONTEXT_FELL_BACK : FELL_BACK);

describe('the lean hooks answer nothing pending as the full hook does', () => {
  it('hook inbox at Stop: nothing printed, the cleanup pass asked for', async () => {
    const run = await compare(child, STOP, STOP_INPUT);
    expect(run).toMatchObject({ code: 0, stdout: '', bundles: LEAN });
    expect(JSON.parse(run.files['sweep-request.json'] ?? '')).toEqual({
      version: 1,
      requested_ms: NOW,
      by: child.pane,
      handled_ms: null,
    });
    // Again, with stop_hook_active: still nothing, and a request that stays the newest.
    const again = await compare(child, STOP, { ...STOP_INPUT, stop_hook_active: true });
    expect(again.bundles).toEqual(LEAN);
    expect(JSON.parse(again.files['sweep-request.json'] ?? '').requested_ms).toBe(NOW + 1);
  });

  it('hook inbox at UserPromptSubmit, Codex and Claude: nothing printed, nothing written', async () => {
    expect(await compare(child, PROMPT, PROMPT_INPUT)).toMatchObject({ stdout: '', bundles: LEAN });
    expect(Object.keys((await viaCli(child, PROMPT, PROMPT_INPUT)).files).sort()).toEqual(
      [...baseline.keys()].sort(),
    );
  });

  it('hook context: the fleet lines, for Claude Code and for Pi', async () => {
    const claude = await compare(child, CONTEXT, PROMPT_INPUT);
    expect(claude.bundles).toEqual(LEAN_CONTEXT);
    expect(JSON.parse(claude.stdout).hookSpecificOutput.additionalContext).toBe(
      'local 2/8 · mem 48.0 GiB free of 64.0 GiB · disk 50% free · agents 0 live, 0 active\ndetails: dogsled status',
    );
    const pi = await compare(child, ['context', '--harness', 'pi'], {});
    expect(pi).toMatchObject({ bundles: LEAN_CONTEXT });
    expect(pi.stdout).toMatch(/^local 2\/8 .*\ndetails: dogsled status\n$/);
  });

  it("hook context counts other owners' open items, orphans and tickets as the full hook does", async () => {
    const item = (id: string, owner: string | null, extra: object = {}) => ({
      id,
      kind: 'job',
      host: 'local',
      pane: null,
      terminal_id: null,
      owner,
      created_ms: NOW - 5_000,
      closed_ms: null,
      close_reason: null,
      job: `j_${id}`,
      ticket: null,
      command: ['make', 'test'],
      ...extra,
    });
    await writeFile(
      join(t.box.state, 'items.json'),
      JSON.stringify({
        version: 1,
        items: [
          item('i_1', lead.pane),
          item('i_2', null, { orphaned: { reason: 'owner gone', since_ms: NOW - 1_000 } }),
          item('i_3', lead.pane, { closed_ms: NOW - 100, close_reason: 'job ended' }),
        ],
      }),
    );
    const run = await compare(child, CONTEXT, PROMPT_INPUT);
    expect(run.bundles).toEqual(LEAN_CONTEXT);
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain(
      '2 open items · 1 orphaned · details: dogsled status',
    );
  });

  it('hook gate and hook state: nothing printed; the gate asks for the pass', async () => {
    const gate = await compare(child, GATE, {});
    expect(gate).toMatchObject({ stdout: '', bundles: LEAN });
    expect(gate.files['sweep-request.json']).toBeDefined();
    expect(await compare(child, STATE, { hook_event_name: 'Notification' })).toMatchObject({
      stdout: '',
      bundles: LEAN,
    });
  });

  it('outside any pane every hook adds nothing', async () => {
    const outside = { HERDR_ENV: '', HERDR_PANE_ID: '' };
    for (const args of [STOP, CONTEXT]) {
      const run = await compare(child, args, STOP_INPUT, outside);
      expect(run).toMatchObject({ stdout: '', bundles: leanFor(args) });
      expect(Object.keys(run.files).sort()).toEqual([...baseline.keys()].sort());
    }
  });

  it('a snapshot whose strings carry escape sequences: the same escape-free context', async () => {
    const snapshot = snapshotFixture({ sample_ms: NOW - 2_000, busy: 0.5 });
    snapshot.host.hostname = 'evil\x1b]0;owned\x07host';
    snapshot.errors = ['probe \x1b[31mfailed\x1b[0m'];
    await writeSnapshot(t.box.state, snapshot);
    const run = await compare(child, CONTEXT, PROMPT_INPUT);
    expect(run.bundles).toEqual(LEAN_CONTEXT);
    expect(run.stdout).not.toContain('\x1b');
  });

  it('a hook loads no builtin module beyond node:vm (the os binding for liveness; the pipe handle for stdin and the poke)', async () => {
    const probe = await moduleProbe(t.box.root);
    // Every hook reads its piped stdin through the pipe handle (two bindings, no module), not
    // through node:fs's thread pool.
    // The context judges the service up: its lock's owner must be alive on this host, named by the
    // os binding's getHostname (node:os, some 1.2 M instructions to load, is what wraps it).
    // A Stop writes the cleanup request (its lock's owner record names the host) and pokes
    // sweep.sock through the pipe handle alone: node:net and its streams are no part of it.
    const expected = new Map([
      [PROMPT, ['NativeModule vm', 'Internal Binding pipe_wrap', 'Internal Binding stream_wrap']],
      [
        CONTEXT,
        [
          'NativeModule vm',
          'Internal Binding os',
          'Internal Binding pipe_wrap',
          'Internal Binding stream_wrap',
        ],
      ],
      [
        STOP,
        [
          'NativeModule vm',
          'Internal Binding os',
          'Internal Binding pipe_wrap',
          'Internal Binding stream_wrap',
        ],
      ],
    ]);
    for (const [args, modules] of expected) {
      // Twice: the second run compiles from the code cache the first one wrote.
      for (let i = 0; i < 2; i++) {
        const run = await spawned(
          ['-r', probe.preload, CLI, 'hook', ...args],
          envFor(child),
          JSON.stringify(PROMPT_INPUT),
        );
        expect(run.code).toBe(0);
      }
      const loaded = await probe.loaded();
      expect({ args, loaded }).toEqual({ args, loaded: modules });
    }
  });

  it('a harness that never closes stdin still gets its answer', async () => {
    const proc = spawn(process.execPath, [CLI, 'hook', ...CONTEXT], {
      env: envFor(child, { DOGSLED_TIMING: '1' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    proc.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    proc.stdin.write(JSON.stringify(PROMPT_INPUT));
    const code = await new Promise((resolve) => proc.once('exit', resolve));
    proc.stdin.destroy();
    expect(code).toBe(0);
    expect(JSON.parse(stdout).hookSpecificOutput.additionalContext).toContain('details: dogsled status');
    expect(stderr).toMatch(/compiled \(code cache: [^)]*\) hook-context-lean$/m);
  });

  it('stdin as a file, a shell pipe, a FIFO never closed, a huge pipe or a directory: the same answer', async () => {
    const json = JSON.stringify(PROMPT_INPUT);
    const expected = (await viaCli(child, CONTEXT, PROMPT_INPUT)).stdout;
    expect(expected).toContain('details: dogsled status');
    const dir = join(t.box.root, 'stdin-forms');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'input.json'), json);
    const hook = ['hook', ...CONTEXT].map((a) => `'${a}'`).join(' ');
    const node = `'${process.execPath}' '${CLI}' ${hook}`;
    const forms = [
      ['a regular file', `${node} < input.json`],
      ['a shell pipe', `printf '%s' '${json}' | ${node}`],
      // The writer keeps the FIFO open: the hook answers once the object is whole, not at its end.
      [
        'a FIFO never closed',
        `mkfifo in.fifo || exit 9; { printf '%s' '${json}'; sleep 60; } > in.fifo & w=$!; ${node} < in.fifo; s=$?; kill $w; exit $s`,
      ],
      // Past the 1 MiB it reads: no JSON, so the hook answers as to an empty stdin.
      ['a huge pipe', `head -c 3000000 /dev/zero | ${node}`],
      ['a directory', `${node} < .`],
    ];
    for (const [name, script] of forms) {
      const run = spawnSync('sh', ['-c', `rm -f in.fifo; ${script}`], {
        cwd: dir,
        env: envFor(child),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect({ name, code: run.status, stdout: run.stdout }).toEqual({ name, code: 0, stdout: expected });
    }
  });
});

describe('anything else falls back to the full hook, which answers as it always did', () => {
  it('a record to deliver: the Stop block and the prompt context', async () => {
    // The record put in place in-process (send's own action): the hook, not send, is under test here.
    await t.send(lead, child.pane, 'please rebase');
    const stop = await compare(child, STOP, STOP_INPUT);
    expect(stop.bundles).toEqual(FELL_BACK);
    expect(JSON.parse(stop.stdout)).toMatchObject({ decision: 'block' });
    expect(JSON.parse(stop.stdout).reason).toContain('please rebase');
  });

  it('a reader not registered yet, or a terminal not remembered', async () => {
    const fresh = await t.newPane();
    const first = await compare(fresh, PROMPT, PROMPT_INPUT);
    expect(first).toMatchObject({ stdout: '', bundles: FELL_BACK });
    expect(first.files[`inbox/${fresh.terminal}.json`]).toBeDefined();
    await rm(join(t.box.state, 'terminals.json'));
    expect((await compare(child, STOP, STOP_INPUT)).bundles).toEqual(FELL_BACK);
  });

  it('the owner has a child here: its work in the context, the gate deciding', async () => {
    await writeFile(
      join(t.box.state, 'items.json'),
      JSON.stringify({
        version: 1,
        items: [
          {
            id: 'i_mine',
            kind: 'job',
            host: 'local',
            pane: null,
            terminal_id: null,
            owner: child.pane,
            created_ms: NOW - 60_000,
            closed_ms: null,
            close_reason: null,
            job: 'j_mine',
            ticket: null,
            command: ['make', 'test'],
          },
        ],
      }),
    );
    const context = await compare(child, CONTEXT, PROMPT_INPUT);
    expect(context.bundles).toEqual(CONTEXT_FELL_BACK);
    expect(JSON.parse(context.stdout).hookSpecificOutput.additionalContext).toContain('1 running');
    for (const args of [STOP, GATE])
      expect((await compare(child, args, STOP_INPUT)).bundles).toEqual(FELL_BACK);
  });

  it('gate.json keeps a history for the owner', async () => {
    await writeFile(
      join(t.box.state, 'gate.json'),
      JSON.stringify({ version: 1, owners: { [child.pane]: { sets: [], updated_ms: NOW - 1 } } }),
    );
    expect((await compare(child, GATE, {})).bundles).toEqual(FELL_BACK);
  });

  it('a cleanup pass that failed: its line in the context', async () => {
    await writeFile(
      join(t.box.state, 'sweep.json'),
      JSON.stringify({
        version: 1,
        ts_ms: NOW - 10_000,
        started_ms: NOW - 11_000,
        finished_ms: NOW - 10_000,
        request_ms: null,
        results: [],
        skipped: [],
        failures: [],
        warnings: [],
        landed_dirty: [],
        unlinked: [],
        error: 'git: not a repository',
      }),
    );
    const run = await compare(child, CONTEXT, PROMPT_INPUT);
    expect(run.bundles).toEqual(CONTEXT_FELL_BACK);
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain('Cleanup:');
  });

  it('in tmux, where every hook reports the agent state', async () => {
    const tmux = { TMUX: '/tmp/tmux-0/default,4242,0', TMUX_PANE: '%3', HERDR_ENV: '', HERDR_PANE_ID: '' };
    const run = await compare(
      child,
      STATE,
      { hook_event_name: 'Notification', notification_type: 'idle_prompt' },
      tmux,
    );
    expect(run.bundles).toEqual(FELL_BACK);
    expect(Object.keys(run.files).some((name) => name.startsWith('agent-reports'))).toBe(true);
  });

  it('a flag registered wrongly: one line in hooks.log, nothing printed', async () => {
    const run = await compare(child, ['inbox', '--harness', 'cursor', '--event', 'Stop'], STOP_INPUT);
    expect(run).toMatchObject({ code: 0, stdout: '', bundles: FELL_BACK });
    expect(run.files['hooks.log']).toContain('--harness must be claude or codex');
  });

  it('the service down or no snapshot: the context as the full hook words it', async () => {
    await rm(join(t.box.state, 'host.json'));
    // No snapshot with the service up: nothing to show, answered lean.
    expect(await compare(child, CONTEXT, PROMPT_INPUT)).toMatchObject({ stdout: '', bundles: LEAN_CONTEXT });
    await lock.release();
    try {
      await writeSnapshot(t.box.state, snapshotFixture({ sample_ms: NOW - 2_000 }));
      const down = await compare(child, CONTEXT, PROMPT_INPUT);
      expect(down.bundles).toEqual(CONTEXT_FELL_BACK);
      expect(JSON.parse(down.stdout).hookSpecificOutput.additionalContext).toMatch(/^local .*\?/);
    } finally {
      lock = await holdServiceLock(t.box.state);
    }
  });
});

describe('hostile state files: the lean hook falls back, and both answer alike', () => {
  const inboxName = () => `inbox/${child.terminal}.json`;
  const cases: Array<[string, () => Promise<void>, string[][]]> = [
    [
      'an inbox that is not JSON',
      () => writeFile(join(t.box.state, inboxName()), '{"version": 1,'),
      [PROMPT],
    ],
    [
      'an inbox that is a directory',
      async () => {
        await rm(join(t.box.state, inboxName()));
        await mkdir(join(t.box.state, inboxName()));
      },
      [STOP],
    ],
    [
      'an inbox record whose state is unknown',
      async () => {
        const inbox = JSON.parse(await readFile(join(t.box.state, inboxName()), 'utf8'));
        inbox.records = [{ id: 'm_x', state: 'lost', lease_until_ms: null }];
        await writeFile(join(t.box.state, inboxName()), JSON.stringify(inbox));
      },
      [PROMPT],
    ],
    [
      'a reader whose harness is a number',
      async () => {
        const inbox = JSON.parse(await readFile(join(t.box.state, inboxName()), 'utf8'));
        inbox.reader.harness = 7;
        await writeFile(join(t.box.state, inboxName()), JSON.stringify(inbox));
      },
      [PROMPT],
    ],
    [
      'terminals.json with an entry that is not one',
      async () => {
        const memo = JSON.parse(await readFile(join(t.box.state, 'terminals.json'), 'utf8'));
        memo.panes.other = { terminal: '', pane: 'x', seen_ms: 1 };
        await writeFile(join(t.box.state, 'terminals.json'), JSON.stringify(memo));
      },
      [STOP],
    ],
    ['items.json that is not JSON', () => writeFile(join(t.box.state, 'items.json'), '[[['), [STOP, CONTEXT]],
    [
      'an item whose owner is a number',
      () =>
        writeFile(
          join(t.box.state, 'items.json'),
          JSON.stringify({ version: 1, items: [{ owner: 3, closed_ms: null }] }),
        ),
      [GATE],
    ],
    [
      'gate.json of version 2',
      () => writeFile(join(t.box.state, 'gate.json'), '{"version":2,"owners":{}}'),
      [GATE],
    ],
    [
      'queue.json with a ticket in no known state',
      () =>
        writeFile(
          join(t.box.state, 'queue.json'),
          JSON.stringify({ version: 1, tickets: [{ owner: null, state: 'x' }] }),
        ),
      [CONTEXT],
    ],
    [
      'host.json with cores as a string',
      async () => {
        const snapshot = snapshotFixture({ sample_ms: NOW - 2_000 });
        Object.assign(snapshot.probe, { cores: '8' });
        await writeSnapshot(t.box.state, snapshot);
      },
      [CONTEXT],
    ],
    ['a FIFO for sweep.json', () => mkfifo(join(t.box.state, 'sweep.json')), [CONTEXT]],
  ];
  for (const [what, spoil, hooks] of cases) {
    it(`${what}`, async () => {
      await spoil();
      const spoiled = await stateFilesNow();
      for (const args of hooks) {
        await restore(spoiled);
        const run = await compare(child, args, args === CONTEXT ? PROMPT_INPUT : STOP_INPUT);
        expect({ what, args, bundles: run.bundles }).toEqual({ what, args, bundles: fellBackFor(args) });
        expect(run.code).toBe(0);
      }
    });
  }

  it("a sweep-request.json lock left by a dead holder: the lean Stop's one try leaves it to the full writer, which breaks it", async () => {
    const lockDir = join(t.box.state, 'sweep-request.json.lock');
    await mkdir(lockDir);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const record = { pid: dead, start: null, hostname: hostname(), token: 'gone', since_ms: NOW - 1_000 };
    await writeFile(join(lockDir, 'owner'), JSON.stringify(record));
    const run = await compare(child, STOP, STOP_INPUT);
    expect(run).toMatchObject({ code: 0, stdout: '', bundles: LEAN });
    expect(JSON.parse(run.files['sweep-request.json'] ?? '').requested_ms).toBe(NOW);
    expect(Object.keys(run.files).some((name) => name.startsWith('sweep-request.json.lock'))).toBe(false);
  });

  it("a Stop frozen (SIGSTOP) inside the sweep-request.json lock: another Stop's lean bundle waits through the cold writer, and both requests land", async () => {
    const file = join(t.box.state, 'sweep-request.json');
    // The frozen one steps aside from the quick write (the knob) and stops itself inside lock.ts's
    // lock, through the waiting writer the lean bundle loads from hook-sweep-request.cjs.
    const frozen = spawnNode([CLI, 'hook', ...STOP], envFor(child, stopInLock(file)), {
      cwd: t.box.home,
      input: JSON.stringify(STOP_INPUT),
      timeoutMs: 60_000,
    });
    await stoppedItself(frozen.child.pid);
    // The other finds the lock held: its quick write answers undefined and the waiting writer runs.
    const waiting = spawnNode([CLI, 'hook', ...STOP], envFor(child, { DOGSLED_TIMING: '1' }), {
      cwd: t.box.home,
      input: JSON.stringify(STOP_INPUT),
      timeoutMs: 60_000,
    });
    frozen.child.kill('SIGCONT');
    const [first, second] = await Promise.all([frozen.done, waiting.done]);
    expect(first).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(second).toMatchObject({ code: 0, stdout: '' });
    expect(timingSplit(second.stderr)).toEqual({ stderr: '', bundles: LEAN });
    const request = JSON.parse(await readFile(file, 'utf8'));
    expect(request).toMatchObject({ version: 1, by: child.pane, handled_ms: null });
    expect([NOW, NOW + 1]).toContain(request.requested_ms);
    const left = await stateFilesNow();
    expect([...left.keys()].filter((name) => name.startsWith('sweep-request.json.'))).toEqual([]);
  });

  it('the lock owner record names this host as node:os does, through the os binding', async () => {
    const file = join(t.box.state, 'sweep-request.json');
    const frozen = spawnNode([CLI, 'hook', ...GATE], envFor(child, stopInLock(file)), {
      cwd: t.box.home,
      input: JSON.stringify(STOP_INPUT),
      timeoutMs: 60_000,
    });
    try {
      await stoppedItself(frozen.child.pid);
      const owner = JSON.parse(await readFile(join(`${file}.lock`, 'owner'), 'utf8'));
      expect(owner).toMatchObject({ pid: frozen.child.pid, hostname: hostname() });
    } finally {
      frozen.child.kill('SIGCONT');
    }
    expect(await frozen.done).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('a sweep-request.json that is a directory: the Stop still answers, lean or not, and nothing is lost', async () => {
    await mkdir(join(t.box.state, 'sweep-request.json'));
    const run = await compare(child, STOP, STOP_INPUT);
    expect(run).toMatchObject({ code: 0, stdout: '', bundles: LEAN });
    expect((await stat(join(t.box.state, 'sweep-request.json'))).isDirectory()).toBe(true);
  });

  it('under --pending-deprecation a Stop still prints nothing on any stream', async () => {
    for (let i = 0; i < 2; i++) {
      const run = await spawned(
        [CLI, 'hook', ...STOP],
        envFor(child, { NODE_OPTIONS: '--pending-deprecation' }),
        JSON.stringify(STOP_INPUT),
      );
      expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    }
  });

  it('a sweep-request.json that is not JSON: quarantined by the same writer, lean or not', async () => {
    await writeFile(join(t.box.state, 'sweep-request.json'), '{"version":');
    const run = await compare(child, STOP, STOP_INPUT);
    expect(run.bundles).toEqual(LEAN);
    expect(Object.keys(run.files).filter((name) => name.startsWith('sweep-request.json.bad-'))).toHaveLength(
      1,
    );
    expect(JSON.parse(run.files['sweep-request.json'] ?? '').requested_ms).toBe(NOW);
  });
});
