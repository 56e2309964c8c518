// Which terminal ids name an inbox file: Herdr's `term_<hex>` and tmux's `%<pane>@<server pid>`,
// and nothing that could leave the inbox directory or carry a control character.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inboxFile } from '../../../service/inbox/inbox-files.js';
import { statePaths } from '../../../service/state/paths.js';

const io = { paths: statePaths('/state') };

describe('inbox file names', () => {
  it("takes Herdr's and tmux's terminal ids as they are", () => {
    expect(inboxFile(io, 'term_0a1b')).toBe(join(io.paths.inbox, 'term_0a1b.json'));
    expect(inboxFile(io, '%12@4242')).toBe(join(io.paths.inbox, '%12@4242.json'));
  });

  it.each([
    '%1@2/../x',
    '../%1@2',
    '%1@',
    '%@1',
    '%a@1',
    '%1@2@3',
    '%1@2\n',
    '%1@2\u001b[2J',
    '..',
    '',
    `%${'1'.repeat(13)}@1`,
  ])('refuses %j in one line', (terminal) => {
    expect(() => inboxFile(io, terminal)).toThrow(/^inbox: terminal id ".*" is not a safe file name$/);
  });
});
