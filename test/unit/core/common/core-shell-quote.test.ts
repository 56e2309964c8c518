import { describe, expect, test } from 'vitest';
import { shellLine, shellWord } from '../../../../service/core/common/shell-quote.js';

describe('shellWord', () => {
  test('leaves plain paths and branch names bare', () => {
    expect(shellWord('/home/ada/repo')).toBe('/home/ada/repo');
    expect(shellWord('feat/unit-a')).toBe('feat/unit-a');
    expect(shellWord('v1.2.3+build:7,x@y%z')).toBe('v1.2.3+build:7,x@y%z');
  });

  test('quotes the empty string as an empty word', () => {
    expect(shellWord('')).toBe("''");
  });

  test('single-quotes words with spaces, globs, expansions and separators', () => {
    expect(shellWord('my repo')).toBe("'my repo'");
    expect(shellWord('*.rs')).toBe("'*.rs'");
    expect(shellWord('$HOME')).toBe("'$HOME'");
    expect(shellWord('a;b|c&d')).toBe("'a;b|c&d'");
    expect(shellWord('~/x')).toBe("'~/x'");
    expect(shellWord('{main}')).toBe("'{main}'");
    expect(shellWord('line\nbreak')).toBe("'line\nbreak'");
  });

  test('quotes words with `=` so a first word is never an assignment', () => {
    expect(shellWord('FOO=bar')).toBe("'FOO=bar'");
  });

  test('closes, escapes and reopens the quotes around a single quote', () => {
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("'")).toBe("''\\'''");
  });
});

describe('shellLine', () => {
  test('joins each argument as one word', () => {
    expect(shellLine(['cargo', 'test', '--', 'a b', ''])).toBe("cargo test -- 'a b' ''");
    expect(shellLine([])).toBe('');
  });
});
