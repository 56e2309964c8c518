// The fast path (cli/fast-path.ts) parses the hot commands without commander, so its flags must be
// exactly the ones cli/program.ts declares for the same commands, with the same defaults: otherwise
// a flag would mean one thing on the fast path and another in the full command line.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  fastFlags,
  HOT_COMMANDS,
  hotBundle,
  LEAN_BUNDLES,
  leanBundle,
  parseFast,
  plainFlags,
} from '../../../cli/fast-path.js';
import { buildProgram } from '../../../cli/program.js';

describe('the fast path', () => {
  const program = buildProgram(() => {});

  it.each(Object.entries(fastFlags()))(
    '%s accepts exactly the flags of the full command line',
    (name, flags) => {
      const command = program.commands.find((entry) => entry.name() === name);
      const declared = (command?.options ?? []).map((option) => (option.long ?? '').replace(/^--/, ''));
      const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      expect([...flags].sort()).toEqual(declared.map(camel).sort());
    },
  );

  it('gives status --interval no default on either path, so the command can tell it was given', () => {
    const status = program.commands.find((entry) => entry.name() === 'status');
    const interval = status?.options.find((option) => option.long === '--interval');
    expect(interval?.defaultValue).toBeUndefined();
    expect(parseFast(['status'])?.flags.interval).toBeUndefined();
  });

  it('leaves help and unknown flags to the full command line', () => {
    expect(parseFast(['status', '--help'])).toBeUndefined();
    expect(parseFast(['status', '--lines'])).toBeUndefined();
    expect(parseFast(['exec', '--help'])).toBeUndefined();
    expect(parseFast(['exec', 'j_x', 'true'])).toBeUndefined();
    expect(parseFast(['exec', 'j_x', '--'])).toBeUndefined();
  });

  it('takes both forms of exec: the id alone (what a launch types) and the id with its command', () => {
    expect(parseFast(['exec', 'j_x'])).toEqual({ name: 'exec', flags: { id: 'j_x' } });
    expect(parseFast(['exec', 'j_x', '--', 'sh', '-c', 'true'])).toEqual({
      name: 'exec',
      flags: { id: 'j_x', command: ['sh', '-c', 'true'] },
    });
  });

  it('takes run with its command after -- and its flags (named as commander names them) before it', () => {
    expect(
      parseFast([
        'run',
        '--wait',
        '--idle-timeout',
        '5m',
        '--cwd=/tmp',
        '--',
        'sh',
        '-c',
        'exit 3',
        '--',
        '-x',
      ]),
    ).toEqual({
      name: 'run',
      flags: { wait: true, idleTimeout: '5m', cwd: '/tmp', command: ['sh', '-c', 'exit 3', '--', '-x'] },
    });
    expect(parseFast(['run', '--', '--wait'])).toEqual({ name: 'run', flags: { command: ['--wait'] } });
  });

  it('leaves run without --, with an empty command or with words before -- to the full command line', () => {
    expect(parseFast(['run', 'true'])).toBeUndefined();
    expect(parseFast(['run', '--wait', '--'])).toBeUndefined();
    expect(parseFast(['run', 'make', '--', 'test'])).toBeUndefined();
    expect(parseFast(['run', '--wait=yes', '--', 'true'])).toBeUndefined();
    expect(parseFast(['run', '--cwd', '--', 'true'])).toBeUndefined();
    expect(parseFast(['run', '--help', '--', 'true'])).toBeUndefined();
    expect(parseFast(['place', '--hots', 'a'])).toBeUndefined();
    expect(parseFast(['place', 'extra'])).toBeUndefined();
  });

  it('takes doctor and prune to their shared bundle, and --host (a peer) to the full command line', () => {
    expect(hotBundle('doctor')).toBe('cleanup');
    expect(hotBundle('prune')).toBe('cleanup');
    expect(hotBundle('place')).toBe('place');
    expect(parseFast(['doctor', '--json'])).toEqual({
      name: 'doctor',
      flags: { json: true, verb: 'doctor' },
    });
    expect(parseFast(['doctor'])).toEqual({ name: 'doctor', flags: { verb: 'doctor' } });
    expect(parseFast(['doctor', '--host', 'box'])).toBeUndefined();
    expect(parseFast(['doctor', '--host=box'])).toBeUndefined();
    expect(parseFast(['doctor', 'extra'])).toBeUndefined();
    expect(parseFast(['prune', 'worktrees', '--json', 'branches', '--yes'])).toEqual({
      name: 'prune',
      flags: { json: true, yes: true, words: ['worktrees', 'branches'], verb: 'prune' },
    });
    expect(parseFast(['prune'])).toEqual({ name: 'prune', flags: { words: [], verb: 'prune' } });
    for (const argv of [
      ['prune', '--host', 'box'],
      ['prune', '--host=box', 'jobs'],
      ['prune', '--', 'jobs'],
      ['prune', '-y'],
      ['prune', '--help'],
    ]) {
      expect(parseFast(argv)).toBeUndefined();
    }
  });

  it('builds a bundle for each hot command and for nothing else (cli/hot/NAME.ts)', async () => {
    const files = await readdir(join(import.meta.dirname, '..', '..', '..', 'cli', 'hot'));
    const bundled = files.filter((name) => name !== 'entry.ts').map((name) => name.replace(/\.ts$/, ''));
    const hot = new Set([
      ...[...HOT_COMMANDS].map((name) => hotBundle(name)),
      hotBundle('exec', { DOGSLED_EXEC_SUPERVISOR: '1' }),
    ]);
    // The dispatcher (hot/dispatch.ts) runs every command but --version and --help (hot/quick.ts).
    expect(bundled.sort()).toEqual([...hot, ...LEAN_BUNDLES, 'dispatch', 'quick'].sort());
    for (const name of HOT_COMMANDS) expect(Object.keys(fastFlags())).toContain(name);
  });

  it('reads the common spelling of flags without parseArgs, and exactly as parseArgs does', () => {
    // Every argv of up to three words from these: what plainFlags answers, parseArgs answers alike;
    // what it leaves (undefined), parseArgs judges.
    const options = {
      config: { type: 'string' },
      harness: { type: 'string' },
      json: { type: 'boolean' },
    } as const;
    const words = [
      '--harness',
      'claude',
      '--harness=codex',
      '--harness=',
      '--json',
      '--json=1',
      '-j',
      '--',
      '-x',
    ];
    words.push('--config', '/tmp/c.toml', '--nope', '--__proto__', 'x=y', '--harness=a=b');
    let answered = 0;
    const argvs: string[][] = [[]];
    for (const a of words) {
      argvs.push([a]);
      for (const b of words) {
        argvs.push([a, b]);
        for (const c of words) argvs.push([a, b, c]);
      }
    }
    for (const args of argvs) {
      const plain = plainFlags(args, options);
      if (plain === undefined) continue;
      answered += 1;
      const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
      expect({ args, values: { ...values } }).toEqual({ args, values: plain });
    }
    expect(answered).toBeGreaterThan(20);
    expect(parseFast(['hook', 'inbox', '--harness', 'claude', '--event=Stop'])).toEqual({
      name: 'hook',
      flags: { sub: 'inbox', harness: 'claude', event: 'Stop' },
    });
    expect(parseFast(['hook', 'inbox', '--harness', 'claude', '--harness', 'codex'])?.flags).toEqual({
      sub: 'inbox',
      harness: 'codex',
    });
    expect(parseFast(['hook', 'inbox', '--bogus'])?.flags.usage).toMatch(/Unknown option '--bogus'/);
  });

  it('sends the common forms to a lean bundle, each path with a code cache of its own', () => {
    const lean = (args: string[]) => {
      const fast = parseFast(args);
      return fast === undefined ? undefined : leanBundle(fast);
    };
    const hook = (...args: string[]) => lean(['hook', ...args]);
    expect(hook('inbox', '--harness', 'claude', '--event', 'Stop')).toEqual({
      bundle: 'hook-lean',
      cache: 'hook-lean-inbox-stop',
    });
    expect(hook('inbox', '--harness', 'codex', '--event', 'UserPromptSubmit')?.cache).toBe(
      'hook-lean-inbox-prompt',
    );
    // The prompt context has a bundle of its own (it reads config.toml and renders; it writes nothing).
    expect(hook('context', '--harness', 'pi')).toEqual({
      bundle: 'hook-context-lean',
      cache: 'hook-lean-context',
    });
    expect(hook('gate')).toEqual({ bundle: 'hook-lean', cache: 'hook-lean-gate' });
    expect(hook('state', '--harness', 'claude', '--event', 'Notification')?.bundle).toBe('hook-lean');
    // A flag registered wrongly is the full hook's to log; an unknown hook is the full command line's.
    expect(hook('inbox', '--bogus')).toBeUndefined();
    expect(hook('../x')).toBeUndefined();
    expect(lean(['status', '--line'])).toEqual({ bundle: 'status-lean', cache: 'status-lean-line' });
    expect(lean(['status', '--brief'])?.cache).toBe('status-lean-brief');
    expect(lean(['status', '--json'])).toEqual({ bundle: 'status-json-lean', cache: 'status-json-lean' });
    expect(lean(['status', '--json', '--line'])).toBeUndefined();
    expect(lean(['status', '--json', '--watch'])).toBeUndefined();
    expect(lean(['place', '--json'])).toEqual({ bundle: 'place-lean', cache: 'place-lean' });
    expect(lean(['place'])?.bundle).toBe('place-lean');
    expect(lean(['place', '--json', '--wait'])).toBeUndefined();
    // send: a target and --message (a --kind beside it); anything else is the full command line's.
    expect(lean(['send', 'w1:p2', '--message', 'hi'])).toEqual({ bundle: 'send-lean', cache: 'send-lean' });
    expect(parseFast(['send', 'w1:p2', '--kind=task', '--message', 'hi'])?.flags).toEqual({
      target: 'w1:p2',
      kind: 'task',
      message: 'hi',
    });
    expect(lean(['send', 'w1:p2', '--message-file', 'notes.md'])).toBeUndefined();
    expect(lean(['send', 'w1:p2', '--message', 'hi', '--host', 'peer'])).toBeUndefined();
    expect(parseFast(['send', 'w1:p2', '--message-file', 'notes.md'])?.flags).toEqual({
      target: 'w1:p2',
      messageFile: 'notes.md',
    });
    // Forms commander judges: flags before the target, a text that starts with a dash, no target.
    expect(parseFast(['send', '--message', 'hi', 'w1:p2'])).toBeUndefined();
    expect(parseFast(['send', 'w1:p2', '--message', '-x'])).toBeUndefined();
    expect(parseFast(['send', 'w1:p2', 'extra', '--message', 'hi'])).toBeUndefined();
    expect(parseFast(['send'])).toBeUndefined();
    // The reads: their --json forms with the flags the lean bundles take; the rest the full line's.
    expect(lean(['items', '--json'])).toEqual({ bundle: 'items-lean', cache: 'items-lean' });
    expect(lean(['items', '--json', '--owner', 'w1:p1'])?.bundle).toBe('items-lean');
    expect(lean(['ps', '--json', '--all'])).toEqual({ bundle: 'ps-lean', cache: 'ps-lean' });
    expect(lean(['board', '--json', '--owner=w1:p1'])).toEqual({ bundle: 'board-lean', cache: 'board-lean' });
    for (const args of [
      ['items'],
      ['ps', '--all'],
      ['board'],
      ['board', '--json', '--open'],
      ['board', '--json', '--dismiss', 'j_1'],
    ])
      expect({ args, lean: lean(args) }).toEqual({ args, lean: undefined });
    expect(parseFast(['items', '--help'])).toBeUndefined();
    expect(parseFast(['ps', 'extra'])).toBeUndefined();
  });
});
