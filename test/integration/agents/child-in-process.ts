// A child started in the test's own process, through the action `dogsled agent` calls (runAgent),
// for the tests whose subject is what happens to a child afterwards: a Node start fewer per child.
// A module of its own: the action's module graph is loaded only by the files that use it.

import { realpath } from 'node:fs/promises';
import { runAgent } from '../../../service/actions/agent.js';
import { callerPlaces } from '../../../service/actions/verb-io.js';
import { loadConfig } from '../../../service/state/config/config.js';
import { Deadline } from '../../../service/time/deadline.js';
import type { AgentSuite } from './agent-fixtures.js';

/** What `startChild` hands back: the fields of `agent --json` the tests read. */
export interface StartedChild {
  launch: string;
  item: string;
  pane: string;
  name: string;
  worktree: string | null;
}

/**
 * What `dogsled agent --kind KIND --name NAME [--branch B] --message TASK` from the caller's pane
 * does, run in this process (runAgent, the action the CLI calls): for a test whose subject is what
 * happens to a child afterwards (close, read, the service), a Node start fewer per child. The
 * child itself is as real as ever (its pane, its fake harness, its worktree); a refusal or a
 * warning throws.
 */
export async function startChild(
  suite: AgentSuite,
  work: { kind: 'pi' | 'claude' | 'codex'; name: string; task: string; branch?: string; cwd?: string },
  env: NodeJS.ProcessEnv = suite.env,
): Promise<StartedChild> {
  const home = env.HOME as string;
  const { paths, now } = callerPlaces(env, home);
  const warnings: string[] = [];
  const io = {
    env,
    home,
    paths,
    now,
    warn: (line: string) => void warnings.push(line),
    config: await loadConfig(suite.box.configPath, false, home),
  };
  const outcome = await runAgent(
    io,
    {
      kind: work.kind,
      name: work.name,
      task: work.task,
      profile: null,
      branch: work.branch ?? null,
      base: null,
      cwd: await realpath(work.cwd ?? suite.scratch),
      pin: null,
      wait: false,
    },
    new Deadline(60_000),
  );
  if (outcome.kind !== 'started') throw new Error(`${work.name}: ${outcome.kind}, not started`);
  // What the CLI would have printed on stderr beside a start.
  if (warnings.length > 0) throw new Error(`${work.name} started with warnings: ${warnings.join('; ')}`);
  const { record, item } = outcome;
  if (record.pane === null) throw new Error(`${work.name}: started without a pane`);
  return {
    launch: record.id,
    item: item.id,
    pane: record.pane,
    name: record.name,
    worktree: record.worktree,
  };
}
