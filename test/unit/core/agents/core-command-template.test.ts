import { describe, expect, test } from 'vitest';
import { expandCommand, templateProblem } from '../../../../service/core/agents/command-template.js';

const values = { main: '/home/ada/repo', path: '/home/ada/repo/.worktrees/feat-a', branch: 'feat/a' };

describe('expandCommand', () => {
  test('replaces each placeholder with its value as one shell word', () => {
    expect(expandCommand('cp {main}/.env {path}/.env && echo {branch}', values)).toEqual({
      ok: true,
      command: 'cp /home/ada/repo/.env /home/ada/repo/.worktrees/feat-a/.env && echo feat/a',
    });
  });

  test('quotes values that the shell would split or expand', () => {
    const odd = { main: "/tmp/it's mine", path: '/tmp/$x y', branch: '' };
    expect(expandCommand('ls {main} {path} x{branch}x', odd)).toEqual({
      ok: true,
      command: "ls '/tmp/it'\\''s mine' '/tmp/$x y' x''x",
    });
  });

  test('gives a detached worktree an empty branch word', () => {
    expect(expandCommand('test -z {branch}', { ...values, branch: '' })).toEqual({
      ok: true,
      command: "test -z ''",
    });
  });

  test('does not expand a placeholder that appears inside a value', () => {
    expect(expandCommand('echo {branch}', { ...values, branch: '{main}' })).toEqual({
      ok: true,
      command: "echo '{main}'",
    });
  });

  test('leaves a command without placeholders as written', () => {
    expect(expandCommand('npm ci', values)).toEqual({ ok: true, command: 'npm ci' });
  });

  test('refuses an unknown placeholder, naming it and the command', () => {
    expect(expandCommand('echo {base}', values)).toEqual({
      ok: false,
      error: 'unknown placeholder {base} in command: echo {base} (only {main}, {path} and {branch} exist)',
    });
  });
});

describe('templateProblem', () => {
  test('accepts the three placeholders', () => {
    expect(templateProblem('{main} {path} {branch}')).toBeNull();
  });

  test.each([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${...}, deliberately refused.
    ['echo ${HOME}', '{HOME}'],
    ['echo a{b,c}', '{b,c}'],
    ["awk '{print}'", '{print}'],
    ['echo {}', '{}'],
    ['echo { MAIN }', '{ MAIN }'],
  ])('refuses other braces in %j', (command, placeholder) => {
    expect(templateProblem(command)).toContain(`unknown placeholder ${placeholder} in command: ${command}`);
  });

  test.each([
    ['echo {', '{'],
    ['echo }', '}'],
    ['echo {{main}}', '{'],
  ])('refuses a lone brace in %j', (command, brace) => {
    expect(templateProblem(command)).toBe(`unmatched "${brace}" in command: ${command}`);
  });
});
