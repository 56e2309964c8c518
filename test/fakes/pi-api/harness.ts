// Runs the dogsled Pi extension (its source, in this process) against the fake Pi host, inside a
// pane of the fake Herdr: DOGSLED_BIN is a wrapper around the built CLI that logs each call's
// arguments to `log`, and the fake logs each session entry it writes to the same file, so a test
// can see in which order Pi wrote a message and dogsled acknowledged it.

import { appendFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { clockOf, type PiDeps } from '../../../plugins/pi/src/deps.js';
import { dogsledExtension } from '../../../plugins/pi/src/extension.js';
import { CLI } from '../../helpers/cli.js';
import type { InboxBox, PaneRef } from '../../helpers/inbox-fixture.js';
import { FakePi, type FakePiOptions } from './fake-pi.js';

export interface PiRun {
  fake: FakePi;
  deps: PiDeps;
  /** The call log: `call <args>` per dogsled call, `written <batch>` per dogsled message Pi wrote. */
  log: string;
}

/**
 * An executable that logs its arguments, then runs the built CLI with them. One per log: sessions of
 * one sandbox (each named for its log) keep their calls apart.
 */
export async function loggedDogsled(dir: string, log: string): Promise<string> {
  const path = join(dir, `dogsled-logged-${basename(log, '.log')}`);
  await writeFile(
    path,
    `#!/bin/sh\nprintf 'call %s\\n' "$*" >> '${log}'\nexec '${process.execPath}' '${CLI}' "$@"\n`,
    {
      mode: 0o755,
    },
  );
  return path;
}

export async function startPi(
  t: InboxBox,
  pane: PaneRef | undefined,
  options: FakePiOptions & { version?: string; env?: NodeJS.ProcessEnv; name?: string; start?: boolean } = {},
): Promise<PiRun> {
  const log = join(t.box.root, `${options.name ?? 'pi'}.log`);
  const bin = await loggedDogsled(t.box.root, log);
  const extra = { DOGSLED_BIN: bin, ...options.env };
  const env = pane === undefined ? { ...t.box.env, ...extra } : t.envOf(pane, extra);
  const deps: PiDeps = { env, home: t.box.home, now: clockOf(env), version: options.version ?? '0.1.0' };
  const fake = new FakePi({
    ...options,
    onAppend: (entry) => {
      const batch = (entry.details as { batch?: string } | undefined)?.batch;
      if (batch !== undefined) appendFileSync(log, `written ${batch}\n`);
    },
  });
  dogsledExtension(deps)(fake.api);
  if (options.start !== false) await fake.startSession();
  return { fake, deps, log };
}

export async function logLines(run: PiRun): Promise<string[]> {
  return (await readFile(run.log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
}

/** The dogsled calls made so far (the arguments of each). */
export async function calls(run: PiRun): Promise<string[]> {
  return (await logLines(run)).filter((line) => line.startsWith('call ')).map((line) => line.slice(5));
}
