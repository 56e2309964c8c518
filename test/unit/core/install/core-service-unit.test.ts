// The service's unit as text (service/core/install/service-unit.ts): what it runs, with what environment,
// every value escaped for systemd and launchd and read back unchanged, mise where it manages node,
// and values no unit can carry refused.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  launchdCommand,
  launchdPlist,
  type ServiceSpec,
  serveArgv,
  systemdCommand,
  systemdUnit,
  unitProblem,
} from '../../../../service/core/install/service-unit.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

const plain: ServiceSpec = {
  argv: ['/usr/bin/node', '/home/ada/.local/lib/node_modules/dogsled/dist/dogsled.cjs', 'serve'],
  env: [
    ['PATH', '/home/ada/.local/bin:/usr/bin:/bin'],
    ['DOGSLED_STATE', '/home/ada/state'],
  ],
  log: '/home/ada/.local/state/dogsled/serve.log',
  home: '/home/ada',
};

const hostile: ServiceSpec = {
  argv: ['/opt/my node/bin/node', '/srv/"quoted" 100%$HOME\\dir/dist/dogsled.cjs', 'serve'],
  env: [['PATH', '/a b/bin:/c%d:/e$PATH:/f"g\\h']],
  log: "/var/it's 100% <mine>/serve.log",
  home: '/home/a&b',
};

describe('systemdUnit', () => {
  it('runs serve with absolute paths, the shell PATH and state location, restarting on failure', () => {
    const lines = systemdUnit(plain).split('\n');
    expect(lines).toContain(
      'ExecStart="/usr/bin/node" "/home/ada/.local/lib/node_modules/dogsled/dist/dogsled.cjs" "serve"',
    );
    expect(lines).toContain('Environment="PATH=/home/ada/.local/bin:/usr/bin:/bin"');
    expect(lines).toContain('Environment="DOGSLED_STATE=/home/ada/state"');
    expect(lines).toContain('StandardOutput=append:/home/ada/.local/state/dogsled/serve.log');
    expect(lines).toContain('StandardError=append:/home/ada/.local/state/dogsled/serve.log');
    expect(lines).toEqual(
      expect.arrayContaining(['Restart=on-failure', 'KillMode=process', 'WantedBy=default.target']),
    );
    expect(systemdUnit(plain)).not.toMatch(/mise/);
  });

  it('escapes quotes, backslashes, specifiers (%) and variables ($) so the command reads back whole', () => {
    const text = systemdUnit(hostile);
    expect(text).toContain('"/srv/\\"quoted\\" 100%%$$HOME\\\\dir/dist/dogsled.cjs"');
    expect(text).toContain('Environment="PATH=/a b/bin:/c%%d:/e$PATH:/f\\"g\\\\h"');
    expect(text).toContain("StandardOutput=append:/var/it's 100%% <mine>/serve.log");
    expect(systemdCommand(text)).toEqual(hostile.argv);
    expect(systemdCommand(systemdUnit(plain))).toEqual(plain.argv);
    expect(systemdCommand('[Service]\nType=simple\n')).toBeNull();
  });
});

describe('launchdPlist', () => {
  it('runs serve with HOME, the shell PATH, a working directory and its log, kept alive on failure', () => {
    const text = launchdPlist(plain);
    expect(text).toContain('<string>dev.dogsled</string>');
    expect(text).toMatch(/<key>HOME<\/key>\s*<string>\/home\/ada<\/string>\s*<key>PATH<\/key>/);
    expect(text).toMatch(
      /<key>StandardOutPath<\/key>\s*<string>\/home\/ada\/\.local\/state\/dogsled\/serve\.log/,
    );
    expect(text).toMatch(/<key>SuccessfulExit<\/key>\s*<false\/>/);
    expect(text).toMatch(/<key>AbandonProcessGroup<\/key>\s*<true\/>/);
    expect(launchdCommand(text)).toEqual(plain.argv);
  });

  it('escapes XML in every value, and reads the command back whole', () => {
    const text = launchdPlist(hostile);
    expect(text).toContain('<string>/var/it&apos;s 100% &lt;mine&gt;/serve.log</string>');
    expect(text).toContain('<string>/home/a&amp;b</string>');
    expect(text).not.toMatch(/<mine>|a&b/);
    expect(launchdCommand(text)).toEqual(hostile.argv);
  });
});

describe('serveArgv', () => {
  it('runs node and the entry by their paths', () => {
    expect(
      serveArgv({ node: '/usr/bin/node', entry: '/x/dist/dogsled.cjs', mise: '/home/a/.local/bin/mise' }),
    ).toEqual(['/usr/bin/node', '/x/dist/dogsled.cjs', 'serve']);
  });

  it("lets mise choose node when node is one of mise's installs, so an upgrade does not break it", () => {
    const node = '/home/a/.local/share/mise/installs/node/20.19.1/bin/node';
    expect(serveArgv({ node, entry: '/x/dist/dogsled.cjs', mise: '/home/a/.local/bin/mise' })).toEqual([
      '/home/a/.local/bin/mise',
      'x',
      '--',
      'node',
      '/x/dist/dogsled.cjs',
      'serve',
    ]);
    // No mise on PATH: the path it has is the only one there is.
    expect(serveArgv({ node, entry: '/x/dist/dogsled.cjs', mise: null })).toEqual([
      node,
      '/x/dist/dogsled.cjs',
      'serve',
    ]);
  });
});

describe('unitProblem', () => {
  it('accepts what a unit carries faithfully', () => {
    expect(unitProblem(plain)).toBeNull();
    expect(unitProblem(hostile)).toBeNull();
  });

  it('refuses control characters, relative paths, empty words and bad variable names', () => {
    expect(unitProblem({ ...plain, env: [['PATH', '/bin\n[Service]\nExecStartPre=/bin/evil']] })).toBe(
      'PATH holds a control character',
    );
    expect(unitProblem({ ...plain, argv: ['node', 'dogsled.cjs', 'serve'] })).toBe(
      'the program "node" is not an absolute path',
    );
    expect(unitProblem({ ...plain, argv: ['/usr/bin/node', '\x1b[31m', 'serve'] })).toBe(
      'word 2 of the command holds a control character',
    );
    expect(unitProblem({ ...plain, log: 'serve.log' })).toBe(
      'the log path "serve.log" is not an absolute path',
    );
    expect(unitProblem({ ...plain, env: [['A B', '/x']] })).toBe('"A B" is not a variable name');
    expect(unitProblem({ ...plain, argv: ['/usr/bin/node', '', 'serve'] })).toBe(
      'word 2 of the command is empty',
    );
  });
});

describe('the templates in services/', () => {
  it('keep the restart and kill policy of the units service install writes', () => {
    const template = readFileSync(join(ROOT, 'services', 'dogsled.service'), 'utf8').split('\n');
    for (const line of [
      'Restart=on-failure',
      'RestartSec=5',
      'KillMode=process',
      'WantedBy=default.target',
    ]) {
      expect(template, line).toContain(line);
      expect(systemdUnit(plain).split('\n'), line).toContain(line);
    }
    const plist = readFileSync(join(ROOT, 'services', 'dev.dogsled.plist'), 'utf8');
    expect(plist).toMatch(/<key>AbandonProcessGroup<\/key>\s*<true\/>/);
    expect(plist).toMatch(/<key>SuccessfulExit<\/key>\s*<false\/>/);
  });
});
