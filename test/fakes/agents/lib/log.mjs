// What a fake agent leaves for the test to assert on, in $FAKE_AGENT_LOG_DIR (else
// ~/.fake-agents): <ms>-<kind>-<pid>.json, the launch record (argv, cwd, session, transcript),
// written atomically once at start; and <ms>-<kind>-<pid>.events.jsonl, one line per thing it did
// (hooks with their stdin and output, states reported to Herdr, steps, commands and their output).

import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function launchLog(kind, env) {
  const dir = env.FAKE_AGENT_LOG_DIR || join(env.HOME || homedir(), '.fake-agents');
  const base = `${Date.now()}-${kind}-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  const eventsPath = join(dir, `${base}.events.jsonl`);
  return {
    dir,
    recordPath: join(dir, `${base}.json`),
    eventsPath,
    record(fields) {
      const path = join(dir, `${base}.json`);
      writeFileSync(`${path}.tmp`, `${JSON.stringify({ ...fields, events: eventsPath }, null, 2)}\n`);
      renameSync(`${path}.tmp`, path);
    },
    event(event, fields = {}) {
      appendFileSync(eventsPath, `${JSON.stringify({ at_ms: Date.now(), event, ...fields })}\n`);
    },
  };
}
