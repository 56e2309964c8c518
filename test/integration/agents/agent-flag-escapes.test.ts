// Escape sequences typed into any flag of `dogsled agent`, with Herdr reachable and a repository as
// the working directory, so each value reaches the check that refuses it (not an earlier "needs
// Herdr" or "not a repository"): the refusal is one line naming `agent`, with the sequence removed
// whole. Neither the raw control characters nor their `\x1b` spelling reach the terminal, and
// nothing is left behind (no launch file, pane or ticket).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { agentCli, agentSuite, launchFileNames, paneIds, quickTask, tickets } from './agent-fixtures.js';

/** Clears the screen, sets the window title, a DCS string, 8-bit CSI, BEL and CR. */
const PAYLOAD = 'x\x1b[2J\x1b]0;pwned\x07\x1bP1$r\x1b\\\x9b31m\x07\ry';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** What a sequence leaves when it is shown rather than removed: its escaped spelling or its tail. */
const SPELLED = /\\x[0-9a-f]{2}|\\u00|\[2J|pwned|P1\$r|\[31m/i;

// Nothing is ever made: one fake Herdr and one repository serve every case, each with its own state.
const suite = agentSuite({ share: 'herdr' });
let repo: Repo;

beforeAll(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

const base = ['--kind', 'pi', '--name', 'ok-child', '--message', quickTask()];

/** Each flag with the payload, the others valid. */
const cases: Array<[string, string[]]> = [
  ['--kind', ['--kind', PAYLOAD, '--name', 'ok-child', '--message', 'x']],
  ['--name', ['--kind', 'claude', '--name', PAYLOAD, '--message', 'x']],
  ['--name (pi)', ['--kind', 'pi', '--name', `a${PAYLOAD}`, '--message', 'x']],
  ['--profile', [...base, '--profile', PAYLOAD]],
  ['--branch', [...base, '--branch', `feat/${PAYLOAD}`]],
  ['--base', [...base, '--branch', 'feat/ok', '--base', PAYLOAD]],
  ['--host', [...base, '--host', PAYLOAD]],
  ['--cwd', [...base, '--cwd', `/nonexistent/${PAYLOAD}`]],
  ['--max', [...base, '--max', PAYLOAD]],
  ['--message-file', ['--kind', 'pi', '--name', 'ok-child', '--message-file', `/nonexistent/${PAYLOAD}`]],
];

describe('agent flag refusals with escape sequences', () => {
  it.each(cases)('%s: one plain line naming agent, nothing made', async (_flag, args) => {
    const before = await paneIds(suite.herdr);
    const result = await agentCli(suite, args, { cwd: repo.main });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^dogsled: agent[: ][^\n]*\n$/);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr).not.toMatch(SPELLED);
    expect(await paneIds(suite.herdr)).toEqual(before);
    expect(await launchFileNames(suite)).toEqual([]);
    expect(await tickets(suite)).toEqual([]);
  });
});
