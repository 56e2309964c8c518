// When is a missing Herdr an error in the service's snapshot? When Herdr is expected here: this
// process was started inside a Herdr pane or pointed at it, or Herdr's socket exists. The same rule
// as cleanup's (service/terminal/herdr/herdr-env.ts); without any of them there simply is no Herdr.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { herdrExpected } from '../../../service/terminal/herdr/herdr-env.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await box.cleanup();
});

async function errorsAfterOneTick(env: NodeJS.ProcessEnv): Promise<string[]> {
  const served = await runCli(['serve', '--once'], env, { timeoutMs: 30_000 });
  expect(served.code).toBe(0);
  const text = await readFile(join(box.state, 'host.json'), 'utf8');
  return HostSnapshotSchema.parse(JSON.parse(text)).errors;
}

describe('a missing Herdr in the snapshot', () => {
  it('is no error where nothing says Herdr should be here', async () => {
    expect(await errorsAfterOneTick(box.env)).toEqual([]);
  });

  it('is an error for a service started inside a Herdr pane whose server is gone', async () => {
    const errors = await errorsAfterOneTick({ ...box.env, HERDR_ENV: '1', HERDR_PANE_ID: 'w1:p1' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^herdr: HERDR_SOCKET_PATH is not set/);
  });
});

describe('herdrExpected', () => {
  it('holds inside a pane, when pointed at a socket, or when the default socket exists', async () => {
    const home = box.home;
    expect(await herdrExpected({}, home)).toBe(false);
    expect(await herdrExpected({ HERDR_ENV: '1' }, home)).toBe(true);
    expect(await herdrExpected({ HERDR_PANE_ID: 'w1:p1' }, home)).toBe(true);
    expect(await herdrExpected({ HERDR_SOCKET_PATH: join(home, 'nowhere.sock') }, home)).toBe(true);
    await mkdir(join(home, '.config', 'herdr'), { recursive: true });
    await writeFile(join(home, '.config', 'herdr', 'herdr.sock'), '');
    expect(await herdrExpected({}, home)).toBe(true);
  });
});
