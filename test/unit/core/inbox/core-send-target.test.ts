import { describe, expect, it } from 'vitest';
import {
  type HostAnswer,
  isName,
  needsPeers,
  sendTarget,
} from '../../../../service/core/inbox/send-target.js';

const at = (pane: string, name: string | null = null) => ({ pane, terminal: `term_${pane}`, name });
const local = (...matches: ReturnType<typeof at>[]): HostAnswer => ({
  host: 'local',
  label: 'local',
  matches,
});
const peer = (host: string, ...matches: ReturnType<typeof at>[]): HostAnswer => ({
  host,
  label: host,
  matches,
});
const down = (host: string, error: string): HostAnswer => ({ host, label: host, error });

describe('sendTarget', () => {
  it('sends where the one match is: here or on that peer', () => {
    expect(sendTarget('far', [local(at('w1:p2', 'far')), peer('big')])).toEqual({ kind: 'here' });
    expect(sendTarget('far', [local(), peer('big', at('w3:p1', 'far')), peer('small')])).toEqual({
      kind: 'peer',
      host: 'big',
    });
  });

  it('refuses a name found on two hosts in one line that lists both', () => {
    const decision = sendTarget('far', [local(at('w1:p2', 'far')), peer('big', at('w3:p1', 'far'))]);
    expect(decision).toEqual({
      kind: 'refused',
      message:
        'send: "far" is on 2 hosts: local (w1:p2 far), big (w3:p1 far); name one with --host; nothing was sent',
    });
  });

  it('refuses a name that names two panes on one host', () => {
    const decision = sendTarget('far', [local(), peer('big', at('w3:p1', 'far'), at('w4:p1'))]);
    expect(decision).toMatchObject({
      kind: 'refused',
      message: 'send: "far" names 2 panes on big: w3:p1 far, w4:p1; send to one pane id; nothing was sent',
    });
  });

  it('says where it looked and where it could not, when nothing matches', () => {
    const decision = sendTarget('far', [local(), peer('big'), down('small', 'unreachable: refused')]);
    expect(decision).toEqual({
      kind: 'refused',
      message:
        'send: no agent or pane "far" on any host (looked on local, big; small: unreachable: refused); nothing was sent',
    });
    expect(
      sendTarget('far', [down('local', 'send needs Herdr or tmux'), down('big', 'unreachable: timeout')]),
    ).toEqual({
      kind: 'refused',
      message:
        'send: no agent or pane "far" on any host (looked nowhere; local: send needs Herdr or tmux; big: unreachable: timeout); nothing was sent',
    });
  });

  it('shows what another host sent as one short line without escapes', () => {
    const hostile = at('w3:p1\u001b[2J\nx', 'far\u001b]0;pwn\u0007');
    const decision = sendTarget('far', [local(at('w1:p1', 'far')), peer('big', hostile)]);
    expect(decision.kind).toBe('refused');
    const message = (decision as { message: string }).message;
    expect(message).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(message.split('\n')).toHaveLength(1);
    const long = sendTarget('x'.repeat(5_000), [local(), down('big', 'y'.repeat(5_000))]);
    expect((long as { message: string }).message.length).toBeLessThan(400);
    const many = Array.from({ length: 1_000 }, (_, n) => at(`w${n}:p1`, 'far'));
    const crowded = sendTarget('far', [local(at('w0:p0', 'far')), peer('big', ...many)]);
    expect((crowded as { message: string }).message).toContain(
      'big (w0:p1 far, w1:p1 far, w2:p1 far, w3:p1 far, w4:p1 far, and 995 more)',
    );
    expect((crowded as { message: string }).message.length).toBeLessThan(400);
  });
});

describe('names and pane ids', () => {
  it('looks up a name everywhere, and a pane id on the peers only when this host has no such pane', () => {
    expect(isName('api-dups')).toBe(true);
    expect(isName('w1:p2')).toBe(false);
    expect(isName('%12')).toBe(false);
    expect(needsPeers('far', local(at('w1:p2', 'far')))).toBe(true);
    expect(needsPeers('w1:p2', local(at('w1:p2')))).toBe(false);
    expect(needsPeers('w1:p2', local())).toBe(true);
    expect(needsPeers('w1:p2', down('local', 'no Herdr'))).toBe(true);
  });
});
