// A peer's `host snapshot` answer as a hostile (or broken) peer could send it: every string it
// carries, known field or not, ends in escape sequences that would set the terminal's title and
// clear the screen, an 8-bit CSI, a bidi override, a zero-width space and a Unicode tag. And the
// check that a document or a text holds none of them.

import { agentPaneFixture, snapshotFixture } from './snapshot.js';

/** A title, a screen clear (7- and 8-bit), a right-to-left override, a zero-width space, a tag. */
export const TAINT = '\u001b]0;pwned\u0007\u001b[2J\u009b2J\u202e\u200b\u{E0041}';

/** What no cleaned text holds (newlines and tabs aside): controls, escapes, bidi and zero-width. */
export const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|[\u{E0000}-\u{E007F}]/u;

const GIB = 1024 ** 3;

export function hostileReply(now: number): Record<string, unknown> {
  const t = (text: string) => `${text}${TAINT}`;
  const base = snapshotFixture({ sample_ms: now });
  return {
    version: 1,
    now_ms: now,
    host: {
      id: 'local',
      label: 'local',
      hostname: t('evil-host'),
      local: true,
      service: 'up',
      reachable: true,
      unreachable: null,
      sample_ms: now,
      age_ms: 0,
      interval_ms: 10_000,
      probe: {
        ...base.probe,
        memory: { ...base.probe.memory, scope: t('cgroup'), cgroup: t('/evil.slice'), limit_bytes: 8 * GIB },
        disk: { ...base.probe.disk, path: t('/srv/evil') },
        agents: { live: 1, active: 1 },
        agent_panes: [
          agentPaneFixture(t('w1:p1'), 'working', now - 60_000, {
            agent: t('claude'),
            name: t('writer'),
            branch: t('feat/evil'),
            cwd: t('/srv/evil/repo'),
            model: t('opus'),
            terminal_id: t('term_1'),
            activity: { at_ms: now, kind: t('tool'), text: t('rm -rf') },
          }),
        ],
        terminal: { kind: t('herdr-socket'), why: t('socket') },
        [t('extra')]: t('field'),
      },
      headroom: { ...base.headroom, eligible: false, free_cores: 0, reason: [t('cpu: busy')] },
      reservations: [{ id: t('r_evil'), created_ms: now, expires_ms: now + 90_000, owner: t('w9:p9') }],
      errors: [t('herdr: refused')],
      retry_ms: null,
    },
    jobs: [
      {
        id: t('j_evil'),
        command: [t('make'), 'all'],
        cwd: t('/srv/evil'),
        host: 'local',
        owner: t('w1:p1'),
        pane: null,
        created_ms: now - 1_000,
        started_ms: now - 900,
        ended_ms: null,
        exit_code: null,
        signal: null,
        reason: null,
        peak_rss_bytes: null,
        cpu_ms: null,
      },
    ],
  };
}

/** Every string in a JSON value, object keys included. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
}

/** The strings of `value` that hold a control, an escape or an invisible character. */
export function tainted(value: unknown): string[] {
  return stringsOf(value).filter((text) => HIDDEN.test(text));
}
