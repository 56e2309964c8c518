// The runner behind the macOS probe (vm_stat, sysctl, iostat) with real children: it runs anywhere,
// so its failures are checked here on whatever host runs the suite.
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../service/probe/darwin.js';

const failure = (promise: Promise<string>) =>
  promise.then(
    () => '',
    (error: Error) => error.message,
  );

describe('the macOS probe runner', () => {
  it("resolves with a command's stdout", async () => {
    expect(await runCommand('sh', ['-c', 'echo 4096'], 5_000)).toBe('4096\n');
  });

  it('names a missing command, an exit status with its first stderr line, and a deadline', async () => {
    expect(await failure(runCommand('dogsled-no-such-vm_stat', [], 5_000))).toMatch(/command not found/);
    expect(await failure(runCommand('sh', ['-c', 'echo "no such key" >&2; exit 3'], 5_000))).toMatch(
      /sh -c .*: exited with code 3: no such key$/,
    );
    expect(await failure(runCommand('sleep', ['30'], 200))).toMatch(/sleep 30: timed out after 200 ms$/);
  });

  it('refuses output far beyond what these commands print', async () => {
    expect(await failure(runCommand('yes', [], 30_000))).toMatch(/yes: output too large$/);
  });

  it('answers once the command exits, even when a child it left behind holds its output', async () => {
    const out = await runCommand('sh', ['-c', 'sleep 60 & echo $!'], 30_000);
    process.kill(Number(out.trim()), 'SIGKILL');
    expect(Number(out.trim())).toBeGreaterThan(1);
  });
});
