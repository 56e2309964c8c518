// What of a child's caller environment travels to a peer (`host agent`) and what the peer makes of
// it: the caller's PATH, each directory under the caller's home as the same one under the peer's.

import { describe, expect, it } from 'vitest';
import { callerEnvForPeer, callerEnvHere } from '../../../service/agents/peer-caller-env.js';
import { AgentLaunchRequestSchema } from '../../../service/host-verbs/agent-verbs.js';

const CALLER = '/home/alice';
const PEER = { home: '/srv/users/bob' };

describe("a child's PATH on a peer", () => {
  it("maps the caller's home directories to the peer's home and keeps every other entry as it is", () => {
    const sent = callerEnvForPeer(
      {
        PATH: `${CALLER}/.local/bin:/usr/local/bin:${CALLER}:/home/alice2/bin:relative/bin::/usr/bin`,
        HOME: CALLER,
        HERDR_PANE_ID: 'w1:p1',
      },
      CALLER,
    );
    // Only the PATH travels: its HOME and pane variables are the caller's host's.
    expect(Object.keys(sent)).toEqual(['path']);
    expect(callerEnvHere(PEER, sent)).toEqual({
      PATH: '/srv/users/bob/.local/bin:/usr/local/bin:/srv/users/bob:/home/alice2/bin:relative/bin::/usr/bin',
    });
  });

  it('gives a caller without a PATH none there (the peer then refuses the harness)', () => {
    expect(callerEnvHere(PEER, callerEnvForPeer({}, CALLER))).toEqual({});
  });

  it('travels as data: a hostile directory name arrives unchanged, and a malformed one refuses the request', () => {
    const hostile = "/opt/it's $(id) `x`;\u001b[2J/bin";
    const sent = callerEnvForPeer({ PATH: hostile }, CALLER);
    expect(callerEnvHere(PEER, JSON.parse(JSON.stringify(sent)))).toEqual({ PATH: hostile });
    const request = {
      item: 'i_aaaaaaaaaaaa',
      request: {
        launch: 'l_aaaaaaaaaaaa',
        kind: 'claude',
        name: 'c1',
        profile: null,
        branch: null,
        base: null,
        cwd: '/tmp',
        caller_workspace: null,
      },
      task: 'x',
      place: { cwd: '/tmp', home_relative: null, checkout: null },
      owner: null,
      ticket: null,
      reservation: null,
      max_ms: 1000,
    };
    expect(AgentLaunchRequestSchema.safeParse({ ...request, caller_env: sent }).success).toBe(true);
    // An older caller sends none: the child keeps the pane's environment there.
    expect(AgentLaunchRequestSchema.safeParse(request).data?.caller_env).toBeUndefined();
    expect(AgentLaunchRequestSchema.safeParse({ ...request, caller_env: { path: '/usr/bin' } }).success).toBe(
      false,
    );
  });
});
