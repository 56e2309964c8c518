// The launch line typed into a pane: every argv must come back from a real POSIX shell exactly as
// given, and arguments that cannot be typed safely are refused before anything is typed.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { shellQuote } from '../../../service/terminal/typed-command.js';

const SHELLS = ['/bin/sh', '/bin/dash', '/bin/bash'].filter((shell) => existsSync(shell));

/** What `shell` parses `line` into: print each word NUL-terminated. */
function parsedBy(shell: string, line: string): string[] {
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const CASES: string[][] = [
  ['dogsled', 'exec', 'j42', '--', 'npm', 'test'],
  ['echo', "it's", 'a "quoted" $HOME `cmd` \\ back'],
  ['sh', '-c', 'a && b; c | d > e < f & g'],
  ['glob*', '?', '[abc]', '{a,b}', '~/x', '~', '#comment'],
  ['', 'empty before', ''],
  ['A=1', 'x=y', '%1', '!bang', 'ümlaut ✓', "''"],
  ['--model=alias/sol', '--thinking', 'medium', '@file.md', 'a:b,c.d+e/f-g_h'],
];

describe('shellQuote', () => {
  it('produces a line every POSIX shell parses back into the same argv', () => {
    expect(SHELLS.length).toBeGreaterThan(0);
    for (const shell of SHELLS) {
      for (const argv of CASES) expect(parsedBy(shell, shellQuote(argv))).toEqual(argv);
    }
  });

  it('leaves plain words bare so the typed line stays readable', () => {
    expect(shellQuote(['dogsled', 'exec', 'j42', '--', 'npm', 'run', 'build:prod'])).toBe(
      'dogsled exec j42 -- npm run build:prod',
    );
    expect(shellQuote(['echo', "it's"])).toBe("echo 'it'\\''s'");
    expect(shellQuote(['A=1'])).toBe("'A=1'");
    expect(shellQuote([''])).toBe("''");
  });

  it('refuses newlines, tabs, escapes and other control characters', () => {
    for (const bad of ['two\nlines', 'tab\there', 'esc\u001b[31m', 'cr\r', 'del\u007f']) {
      expect(() => shellQuote(['echo', bad])).toThrow(DogsledError);
    }
    expect(() => shellQuote(['echo', 'a\nb'])).toThrow('contains a control character');
  });
});
