// `host agent` for an owner on another host links the child in parents.json (its terminal, the
// owner's pane and host identity, its item and pane), here on the built CLI with the fake Herdr and
// fake agents; a parents.json that cannot be written costs one warning line, never the launch.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { removeScenarios } from '../../helpers/git-scenarios.js';
import { agentSuite, items, type Json, quickTask } from '../agents/agent-fixtures.js';

const suite = agentSuite();
const OWNER_HOST = 'h_abcdefghijkl';

afterAll(() => removeScenarios());

function request(n: number, owner_host: string | null = OWNER_HOST) {
  return {
    item: `i_parent000${n}`,
    request: {
      launch: `l_parent000${n}`,
      kind: 'claude',
      name: `far${n}`,
      profile: null,
      branch: null,
      base: null,
      cwd: suite.scratch,
      caller_workspace: null,
    },
    task: quickTask('Ready.'),
    place: { cwd: suite.scratch, home_relative: null, checkout: null },
    owner: 'w9:p9',
    owner_host,
    ticket: null,
    reservation: null,
    max_ms: 120_000,
  };
}

async function parents(): Promise<Json> {
  return JSON.parse(await readFile(join(suite.box.state, 'parents.json'), 'utf8').catch(() => 'null'));
}

describe('host agent for an owner on another host', () => {
  it('links the child by its terminal in parents.json; an owner here links nothing', async () => {
    const launched = await runCli(['host', 'agent'], suite.env, { input: JSON.stringify(request(1)) });
    expect(launched.code, launched.stderr).toBe(0);
    const { record } = JSON.parse(launched.stdout);
    expect(await parents()).toEqual({
      version: 1,
      children: {
        [record.terminal_id]: {
          owner: 'w9:p9',
          owner_host: OWNER_HOST,
          item: 'i_parent0001',
          pane: record.pane,
          linked_ms: expect.any(Number),
        },
      },
    });
    const here = await runCli(['host', 'agent'], suite.env, { input: JSON.stringify(request(2, null)) });
    expect(here.code, here.stderr).toBe(0);
    expect(Object.keys((await parents()).children)).toEqual([record.terminal_id]);
  });

  it('still launches when parents.json is a directory, with one warning line', async () => {
    await mkdir(join(suite.box.state, 'parents.json'), { recursive: true });
    const launched = await runCli(['host', 'agent'], suite.env, { input: JSON.stringify(request(3)) });
    expect(launched.code).toBe(0);
    expect(launched.stderr).toMatch(/^dogsled: warning: agent: cannot record far3 in parents\.json: .+\n$/);
    expect((await items(suite)).find((item) => item.id === 'i_parent0003')?.closed_ms).toBeNull();
  });
});
