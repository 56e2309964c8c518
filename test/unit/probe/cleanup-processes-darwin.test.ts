import { describe, expect, it } from 'vitest';
import { parseLsofCwds, parsePsTable } from '../../../service/process/process-table-darwin.js';

describe('the macOS process table', () => {
  it('reads pid, parent and program name from ps, never arguments', () => {
    const table = parsePsTable(
      '    1     0 /sbin/launchd\n  412     1 /bin/zsh\n 4120   412 /Applications/Visual Studio Code.app/Contents/MacOS/Electron\n',
    );
    expect(table?.get(412)).toEqual({ ppid: 1, comm: 'zsh' });
    expect(table?.get(4120)).toEqual({ ppid: 412, comm: 'Electron' });
  });

  it('refuses ps output it cannot read, so the table counts as unreadable', () => {
    expect(parsePsTable('PID PPID COMM\n')).toBeNull();
  });

  it('pairs lsof cwd records with their pids, paths with spaces included', () => {
    const cwds = parseLsofCwds('p412\nfcwd\nn/Users/me/src/app\np4120\nfcwd\nn/Users/me/My Repo/wt\n');
    expect(cwds).toEqual(
      new Map([
        [412, '/Users/me/src/app'],
        [4120, '/Users/me/My Repo/wt'],
      ]),
    );
  });
});
