// The set-up of a file whose tests each run a real `serve` in a fresh sandbox on a fake /proc (the
// queue fixtures' roomFor5): a sandbox made before each test; after it, the fake /proc's ticker
// stopped first (its writes would land in a dir being removed), then every command the test started
// killed, then the sandbox removed.

import { afterEach, beforeEach } from 'vitest';
import { exited, type Sandbox, sandbox, type startCli } from './cli.js';

export type Running = Array<ReturnType<typeof startCli>>;

export interface ServeSandbox {
  /** The commands the test started (a `serve`, say): each still running is killed after the test. */
  readonly running: Running;
  /** Stops the fake /proc's ticker (roomFor5's `stop`); called after each test. */
  stopTicker: () => void;
}

/** Kills (SIGKILL) each command in `running` that has not exited, and empties the list. */
export async function killAll(running: Running): Promise<void> {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
  }
}

/**
 * Registers the hooks; `made` gets each test's sandbox, made with `env` added to its environment,
 * before the test (the file keeps it as its `box`). A test that starts a ticker sets `stopTicker`;
 * the last one set is called after each test.
 */
export function sandboxPerTest(made: (box: Sandbox) => void, env: NodeJS.ProcessEnv = {}): ServeSandbox {
  let box: Sandbox | undefined;
  const served: ServeSandbox = { running: [], stopTicker: () => undefined };
  beforeEach(async () => {
    box = await sandbox(env);
    made(box);
  });
  afterEach(async () => {
    served.stopTicker();
    await killAll(served.running);
    await box?.cleanup();
  });
  return served;
}
