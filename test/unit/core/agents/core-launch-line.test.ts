import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import {
  CODEX_CONTRACT,
  LAUNCH_LINE_MAX_BYTES,
  type LaunchLineInput,
  type LaunchProfile,
  launchLine,
} from '../../../../service/core/agents/launch-line.js';

const STATE = '/home/ada/.local/state/dogsled';
const TASK = `${STATE}/launches/l_abc.task.md`;
const CONTRACT = `${STATE}/launches/l_abc.contract.md`;

function input(extra: Partial<LaunchLineInput> = {}): LaunchLineInput {
  return {
    kind: 'pi',
    name: 'api-dups',
    pane: 'w2:p1',
    taskFile: TASK,
    contractFile: CONTRACT,
    stateDir: STATE,
    ...extra,
  };
}

function withState(kind: string, state: string, extra: Partial<LaunchLineInput> = {}): LaunchLineInput {
  return input({
    kind,
    stateDir: state,
    taskFile: `${state}/launches/l_abc.task.md`,
    contractFile: `${state}/launches/l_abc.contract.md`,
    ...extra,
  });
}

const PROFILE: LaunchProfile = {
  name: 'general',
  model: 'alias/sol',
  thinking: 'medium',
  prompts: [
    '/home/ada/.config/dogsled/profiles/_shared/lead.md',
    '/home/ada/.config/dogsled/profiles/general/prompt.md',
  ],
  piArgs: ['--no-skills', '--tools', 'read,bash'],
};

function ok(value: LaunchLineInput) {
  const result = launchLine(value);
  if (!result.ok) throw new Error(result.error);
  return result.line;
}

function refusal(value: LaunchLineInput): string {
  const result = launchLine(value);
  if (result.ok) throw new Error(`expected a refusal, got ${result.line.typed}`);
  return result.error;
}

/** What sh makes of the typed line: the argv it would run. */
function shellWords(line: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], {
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

describe('the launch line of each kind', () => {
  test('Pi reads the contract as an appended system prompt file and the task as @file', () => {
    const line = ok(input());
    expect(line.args).toEqual(['--append-system-prompt', CONTRACT, `@${TASK}`]);
    expect(line.herdrArgs).toEqual([
      'agent',
      'start',
      'api-dups',
      '--kind',
      'pi',
      '--pane',
      'w2:p1',
      '--',
      ...line.args,
    ]);
    expect(line.typed).toBe(`pi --append-system-prompt ${CONTRACT} @${TASK}`);
    expect(line.bytes).toBe(line.typed.length);
  });

  test('a Pi profile adds --model, --thinking, one --append-system-prompt per prompt in order, then pi_args', () => {
    const line = ok(input({ profile: PROFILE }));
    expect(line.args).toEqual([
      '--model',
      'alias/sol',
      '--thinking',
      'medium',
      '--append-system-prompt',
      CONTRACT,
      '--append-system-prompt',
      PROFILE.prompts[0],
      '--append-system-prompt',
      PROFILE.prompts[1],
      '--no-skills',
      '--tools',
      'read,bash',
      `@${TASK}`,
    ]);
  });

  test('a profile without model, thinking or prompts adds only its pi_args', () => {
    const line = ok(
      input({ profile: { name: 'bare', model: null, thinking: null, prompts: [], piArgs: [] } }),
    );
    expect(line.args).toEqual(['--append-system-prompt', CONTRACT, `@${TASK}`]);
  });

  test('Claude gets the contract through --append-system-prompt as a pointer, and a one-line task pointer', () => {
    const line = ok(input({ kind: 'claude' }));
    expect(line.args).toHaveLength(3);
    expect(line.args[0]).toBe('--append-system-prompt');
    expect(line.args[1]).toContain(CONTRACT);
    expect(line.args[2]).toBe(`You are api-dups. Your task is in ${TASK}: read it and do it.`);
    expect(line.typed.startsWith('claude --append-system-prompt ')).toBe(true);
  });

  test('Codex gets its fixed contract inline, then the task pointer, as its only (last) argument', () => {
    const line = ok(input({ kind: 'codex' }));
    expect(line.args).toEqual([
      `${CODEX_CONTRACT} You are api-dups. Your task is in ${TASK}: read it and do it.`,
    ]);
    expect(CODEX_CONTRACT.length).toBeLessThan(300);
  });

  test.each(['pi', 'claude', 'codex'])('the %s line carries no task text, only its path', (kind) => {
    const line = ok(input({ kind }));
    expect(line.typed).not.toContain('\n');
    expect(line.typed).toContain(TASK);
  });
});

describe('refusals before any pane exists', () => {
  test('--profile with another kind', () => {
    expect(refusal(input({ kind: 'claude', profile: PROFILE }))).toBe(
      '--profile is for Pi children only, not claude',
    );
    expect(refusal(input({ kind: 'codex', profile: PROFILE }))).toMatch(/^--profile is for Pi children only/);
  });

  test('an unknown kind', () => {
    expect(refusal(input({ kind: 'gemini' }))).toBe('unknown kind "gemini": use pi, claude or codex');
  });

  test.each([['Upper'], ['1abc'], ['-x'], ['a b'], ['a;b'], ['$(id)'], ['x'.repeat(33)], [''], ['a\nb']])(
    'the name %j, which Herdr would refuse',
    (name) => {
      const error = refusal(input({ name }));
      expect(error).toMatch(/^name ".*" is not a Herdr agent name/);
      expect(error).not.toMatch(/[\n\u001b]/);
    },
  );

  test('a 32-character name is a Herdr name', () => {
    expect(launchLine(input({ name: `a${'b'.repeat(31)}` })).ok).toBe(true);
  });

  test.each([
    ['a newline in the state path', withState('pi', '/tmp/st\nate')],
    ['an escape in the state path', withState('claude', '/tmp/st\u001b[31mate')],
    ['a tab in the state path', withState('codex', '/tmp/st\tate')],
    ['a C1 control in the state path', withState('pi', '/tmp/st\u009bate')],
    ['DEL in the state path', withState('pi', '/tmp/st\u007fate')],
  ])('%s', (_what, value) => {
    const error = refusal(value);
    expect(error).toMatch(
      /^the state path ".*" contains a control character, which Herdr cannot type; set DOGSLED_STATE to a directory without one$/,
    );
    // The message shows the character, never sends it to the terminal.
    expect(error).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(error).toMatch(/\\x(0a|1b|09|9b|7f)/);
  });

  test('a control character in a profile value names the profile and the field', () => {
    const profile = { ...PROFILE, piArgs: ['--ok', 'bad\u001b]0;title\u0007'] };
    expect(refusal(input({ profile }))).toMatch(
      /^profile general's pi_args\[1\] contains a control character, which Herdr cannot type: "bad\\x1b\]0;title\\x07"$/,
    );
    expect(refusal(input({ profile: { ...PROFILE, model: 'a\nb' } }))).toMatch(
      /^profile general's model contains/,
    );
  });
});

describe('the 960-byte budget', () => {
  /** A Claude line whose name is one character longer per step: exactly one more byte. */
  function claudeLine(nameLength: number, state: string) {
    return launchLine(withState('claude', state, { name: `a${'b'.repeat(nameLength - 1)}` }));
  }

  test('960 bytes pass and 961 bytes are refused, counted in bytes, not characters', () => {
    // Multi-byte characters in the state path count as their UTF-8 bytes.
    const base = '/tmp/é-état';
    const short = claudeLine(1, base);
    if (!short.ok) throw new Error(short.error);
    const perState = 2; // the state path appears in the contract and the task pointer
    const padding = Math.floor((LAUNCH_LINE_MAX_BYTES - 20 - short.line.bytes) / perState);
    const state = `${base}/${'x'.repeat(padding)}`;
    const first = claudeLine(1, state);
    if (!first.ok) throw new Error(first.error);
    const nameLength = 1 + (LAUNCH_LINE_MAX_BYTES - first.line.bytes);
    const exact = claudeLine(nameLength, state);
    if (!exact.ok) throw new Error(exact.error);
    expect(exact.line.bytes).toBe(960);
    expect(Buffer.byteLength(exact.line.typed)).toBe(960);
    expect(exact.line.typed.length).toBeLessThan(960);
    const over = claudeLine(nameLength + 1, state);
    expect(over).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^the launch line would be 961 bytes, over the 960-byte limit: the state path /,
      ),
    });
  });

  test('a long state path is named as what made the line long, with what to do', () => {
    const error = refusal(withState('pi', `/srv/${'deep/'.repeat(100)}state`));
    expect(error).toMatch(
      /the state path "\/srv\/deep\/.*…" takes \d+ bytes \(2 uses\); set DOGSLED_STATE to a shorter directory$/,
    );
  });

  test('a long profile is named as what made the line long', () => {
    const profile = {
      ...PROFILE,
      piArgs: Array.from({ length: 40 }, (_, i) => `--extension=/opt/pi/ext-${i}.ts`),
    };
    expect(refusal(input({ profile }))).toMatch(
      /: profile "general" takes \d+ bytes \(its model, thinking, prompt paths and pi_args\)$/,
    );
  });
});

describe('the typed line', () => {
  test('is what sh parses back into exactly the executable and its args, hostile paths included', () => {
    const state = `/tmp/it's a "state" $(touch /tmp/pwned) ; \`id\` & -rf *`;
    for (const kind of ['pi', 'claude', 'codex']) {
      const line = ok(
        withState(
          kind,
          state,
          kind === 'pi' ? { profile: { ...PROFILE, piArgs: ['-x', '$HOME', "'"] } } : {},
        ),
      );
      expect(shellWords(line.typed)).toEqual([kind, ...line.args]);
    }
  });
});
