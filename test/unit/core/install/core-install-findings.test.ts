// doctor's install rules (service/core/install/install-findings.ts): each check's verdict from what was read,
// and the command each fix names; the keys Codex records trusted hooks under.

import { describe, expect, it } from 'vitest';
import {
  codexHookKeys,
  type InstallFacts,
  installFindings,
} from '../../../../service/core/install/install-findings.js';
import { installLines } from '../../../../service/core/install/install-lines.js';

const lines = installLines('1.2.3');
const healthy: InstallFacts = {
  version: '1.2.3',
  lines,
  service: {
    manager: 'systemd',
    installed: true,
    active: true,
    pid: 10,
    problem: null,
    entry: '/p/dist/dogsled.cjs',
  },
  lock: { up: true, pid: 10 },
  onPath: '/p/dist/dogsled.cjs',
  origin: { kind: 'prefix', bin: '/home/a/.local/bin' },
  claude: { found: true, plugin: { id: 'dogsled@dogsled', version: '1.2.3', enabled: true }, error: null },
  codex: {
    found: true,
    plugin: { id: 'dogsled@dogsled', version: null, enabled: true },
    hooks: { total: 4, trusted: 4 },
    error: null,
  },
  herdr: { running: true, why: '', plugin: { id: 'dogsled', version: '1.2.3', enabled: true }, error: null },
  warm: true,
};

const byCheck = (facts: InstallFacts) => new Map(installFindings(facts).map((f) => [f.check, f]));

describe('installFindings', () => {
  it('is all ok on a host set up as the README says', () => {
    const found = installFindings(healthy);
    expect(found.map((f) => [f.check, f.state])).toEqual([
      ['service', 'ok'],
      ['path', 'ok'],
      ['claude', 'ok'],
      ['codex', 'ok'],
      ['codex-hooks', 'ok'],
      ['herdr', 'ok'],
      ['warm', 'ok'],
    ]);
    expect(found.every((f) => f.fix === null)).toBe(true);
  });

  it('sends every service problem to `dogsled service install`', () => {
    const cases: Array<[Partial<InstallFacts>, string]> = [
      [
        { service: { ...healthy.service, installed: false } as InstallFacts['service'] },
        'serve runs (pid 10), but not under systemd: it ends with the shell that started it',
      ],
      [
        {
          service: { ...healthy.service, installed: false } as InstallFacts['service'],
          lock: { up: false, pid: null },
        },
        'no serve runs, and no systemd unit starts one',
      ],
      [
        { service: { ...healthy.service, active: false } as InstallFacts['service'] },
        'the systemd unit is installed but not running',
      ],
      [
        { service: { ...healthy.service, problem: 'systemctl is not on PATH' } as InstallFacts['service'] },
        'systemd could not be asked about the unit: systemctl is not on PATH',
      ],
      [
        { lock: { up: false, pid: null } },
        'the systemd unit runs, but no serve holds the service lock (see serve.log)',
      ],
    ];
    for (const [change, detail] of cases) {
      expect(byCheck({ ...healthy, ...change }).get('service')).toEqual({
        check: 'service',
        state: 'fix',
        detail,
        fix: 'dogsled service install',
      });
    }
    expect(
      byCheck({ ...healthy, service: { unsupported: 'no service manager on freebsd' } }).get('service'),
    ).toMatchObject({ state: 'skip' });
  });

  it('names what puts dogsled on PATH, or the unit that runs another one', () => {
    expect(byCheck({ ...healthy, onPath: null }).get('path')?.fix).toBe(
      `export PATH="/home/a/.local/bin:$PATH" (and in your shell's profile)`,
    );
    expect(
      byCheck({ ...healthy, onPath: null, origin: { kind: 'checkout', dir: '/src/dogsled' } }).get('path')
        ?.fix,
    ).toBe('cd /src/dogsled && npm link');
    expect(byCheck({ ...healthy, onPath: null, origin: { kind: 'unknown' } }).get('path')?.fix).toBe(
      lines.npm,
    );
    expect(byCheck({ ...healthy, onPath: '/other/dogsled' }).get('path')).toEqual({
      check: 'path',
      state: 'fix',
      detail: 'the service runs /p/dist/dogsled.cjs, but dogsled on PATH is /other/dogsled',
      fix: 'dogsled service install',
    });
  });

  it('installs, enables or updates each plugin with its own command', () => {
    const none = byCheck({
      ...healthy,
      claude: { ...healthy.claude, plugin: null },
      codex: { ...healthy.codex, plugin: null },
      herdr: { ...healthy.herdr, plugin: null },
    });
    expect([none.get('claude')?.fix, none.get('codex')?.fix, none.get('herdr')?.fix]).toEqual([
      lines.claude,
      lines.codex,
      lines.herdr,
    ]);
    expect(none.has('codex-hooks')).toBe(false);
    const off = byCheck({
      ...healthy,
      claude: { ...healthy.claude, plugin: { id: 'dogsled@mine', version: '1.2.3', enabled: false } },
    });
    expect(off.get('claude')?.fix).toBe('claude plugin enable dogsled@mine');
    const old = byCheck({
      ...healthy,
      herdr: { ...healthy.herdr, plugin: { id: 'dogsled', version: '1.0.0', enabled: true } },
    });
    expect(old.get('herdr')).toMatchObject({
      detail: 'Herdr has the dogsled plugin 1.0.0, this dogsled is 1.2.3',
      fix: lines.herdr,
    });
  });

  it('asks for the hooks review in Codex while any dogsled hook is untrusted', () => {
    expect(
      byCheck({ ...healthy, codex: { ...healthy.codex, hooks: { total: 4, trusted: 1 } } }).get(
        'codex-hooks',
      ),
    ).toEqual({
      check: 'codex-hooks',
      state: 'fix',
      detail: '3 of 4 dogsled hooks not trusted: Codex skips them without a word',
      fix: 'codex, then /hooks: review and trust the dogsled hooks',
    });
  });

  it('skips what is not there to check: no client on PATH, no Herdr, no service to keep a supervisor', () => {
    const found = byCheck({
      ...healthy,
      claude: { found: false, plugin: null, error: null },
      codex: { found: false, plugin: null, hooks: null, error: null },
      herdr: { running: false, why: 'HERDR_SOCKET_PATH is not set', plugin: null, error: null },
      warm: null,
    });
    expect(['claude', 'codex', 'herdr', 'warm'].map((c) => found.get(c as 'claude')?.state)).toEqual([
      'skip',
      'skip',
      'skip',
      'skip',
    ]);
    expect(byCheck({ ...healthy, warm: false }).get('warm')?.fix).toBe('dogsled service install');
  });
});

describe('codexHookKeys', () => {
  it('names each command of the hooks file as Codex records its trust', () => {
    const hooks = {
      SessionStart: [{ hooks: [{ command: 'a' }] }],
      UserPromptSubmit: [{ hooks: [{ command: 'b' }, { command: 'c' }] }],
      Stop: [{ hooks: [{ command: 'd' }] }],
    };
    expect(codexHookKeys('dogsled@dogsled', 'hooks/codex-hooks.json', hooks)).toEqual([
      'dogsled@dogsled:hooks/codex-hooks.json:session_start:0:0',
      'dogsled@dogsled:hooks/codex-hooks.json:user_prompt_submit:0:0',
      'dogsled@dogsled:hooks/codex-hooks.json:user_prompt_submit:0:1',
      'dogsled@dogsled:hooks/codex-hooks.json:stop:0:0',
    ]);
  });
});
