// The widget's keys against the fake Pi host, outside Herdr, on real jobs and tickets: Alt+J/K move
// the selection, Alt+I reads the selected job inline and opens the folded DONE group, Alt+S and Alt+C
// stop and cancel only after a confirmation, Alt+M messages an agent, Alt+] and /todos (Alt+T) show
// pi-todo's display, `/todos list` prints it plainly. Inside Herdr the keys point at the board.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TODO_DISPLAY_EVENT } from '../../../plugins/pi/src/todos.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;
let lock: ServiceLock;
const runs: PiRun[] = [];

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
  lock = await holdServiceLock(t.box.state);
});

afterEach(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
  await lock.release();
  await t.close();
});

function room(free: boolean): Promise<void> {
  return writeSnapshot(
    t.box.state,
    snapshotFixture({ sample_ms: Date.now() - 200, cores: 8, busy: free ? 0 : 0.9 }),
  );
}

async function cli(args: string[]) {
  return runCli(args, t.envOf(lead), { cwd: t.box.root, timeoutMs: 60_000 });
}

async function jobRecord(id: string) {
  return JSON.parse(await readFile(join(t.box.state, 'jobs', `${id}.json`), 'utf8'));
}

const press = (run: PiRun, key: string) => run.fake.shortcuts.get(key)?.handler(run.fake.ctx);
const widget = (run: PiRun) => run.fake.widgets.get('dogsled') ?? [];

describe('the widget keys', () => {
  it('select, read, fold, stop and cancel real work, each stop and cancel after a confirmation', async () => {
    await room(true);
    const ended = JSON.parse((await cli(['run', '--json', '--', 'true'])).stdout).job as string;
    await waitFor('the first job', async () => (await jobRecord(ended)).ended_ms ?? undefined, {
      timeoutMs: 15_000,
    });
    const script = ['sh', '-c', 'echo hello-from-job; echo "\u001b]0;pwned\u0007plain"; sleep 60'];
    const running = JSON.parse((await cli(['run', '--json', '--', ...script])).stdout).job as string;
    await waitFor('the job', async () => (await jobRecord(running)).started_ms ?? undefined, {
      timeoutMs: 15_000,
    });
    await room(false);
    const queued = await cli(['run', '--json', '--', 'true']);
    expect(queued.code).toBe(1);
    const ticket = JSON.parse(queued.stdout).ticket as string;

    const run = await startPi(t, lead, { env: { HERDR_ENV: '' } });
    runs.push(run);
    await waitFor('the board', () => (widget(run).some((line) => /RUNNING 1/.test(line)) ? true : undefined));
    expect(widget(run).at(-1)).toMatch(/RUNNING 1 · WAITING 1/);

    // Alt+J expands in place and selects; the DONE group starts folded.
    await press(run, 'alt+k');
    let lines = widget(run);
    expect(lines.find((line) => line.startsWith('  › '))).toMatch(/running +sh -c/);
    expect(lines.find((line) => /DONE/.test(line))).toMatch(/^ {2}DONE ▸ 1 \(Alt\+I opens\)$/);
    expect(lines.at(-1)).toMatch(/^Alt\+J\/K select/);

    // Alt+I reads the job inline: its newest lines, escape-free, and where the rest is.
    await press(run, 'alt+i');
    lines = widget(run);
    expect(lines).toContain('      hello-from-job');
    expect(lines).toContain(`      full output: dogsled logs ${running}`);
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);

    // Alt+C and Alt+M on a job: a hint, nothing done.
    await press(run, 'alt+c');
    expect(run.fake.notifications.at(-1)?.message).toMatch(/select a ticket first/);
    await press(run, 'alt+m');
    expect(run.fake.notifications.at(-1)?.message).toMatch(/messages an agent: select one/);
    expect(run.fake.prompts).toEqual([]);

    // Alt+S asks first; a refusal stops nothing, a yes stops the job.
    await press(run, 'alt+s');
    expect(run.fake.prompts.at(-1)).toMatch(new RegExp(`^Stop job\\? Stop ${running}: sh -c`));
    expect((await jobRecord(running)).ended_ms).toBeNull();
    run.fake.confirmAnswer = true;
    await press(run, 'alt+s');
    await waitFor('the stop', async () => (await jobRecord(running)).ended_ms ?? undefined, {
      timeoutMs: 15_000,
    });

    // Alt+C on the ticket cancels it after the confirmation.
    run.fake.confirmAnswer = false;
    const waiting = () =>
      widget(run).findIndex((line) => line.includes('queued') || line.includes('WAITING'));
    await waitFor('the ticket row', () => (waiting() >= 0 ? true : undefined));
    for (let i = 0; i < 5 && !widget(run).some((line) => /^ {2}› +(queued|#)/.test(line)); i++)
      await press(run, 'alt+j');
    await press(run, 'alt+c');
    expect(run.fake.prompts.at(-1)).toMatch(new RegExp(`^Cancel queued work\\? Cancel ${ticket}`));
    const state = async () =>
      JSON.parse(await readFile(join(t.box.state, 'queue.json'), 'utf8')).tickets.find(
        (entry: { id: string }) => entry.id === ticket,
      )?.state;
    expect(await state()).toBe('pending');
    run.fake.confirmAnswer = true;
    await press(run, 'alt+c');
    expect(await state()).toBe('cancelled');

    // The fold: Alt+I on it opens the DONE group.
    for (let i = 0; i < 6; i++) await press(run, 'alt+j');
    expect(widget(run).find((line) => line.startsWith('› '))).toMatch(/DONE ▸/);
    await press(run, 'alt+i');
    expect(widget(run).find((line) => /DONE/.test(line))).toMatch(/DONE ▾$/);
    expect(widget(run).some((line) => /^ {4}\S.* true( |$)/.test(line))).toBe(true);
  }, 120_000);

  it('message the selected agent through the inbox, and point at the board inside Herdr', async () => {
    await registerClaude(t, child);
    const tracked = await cli(['track', 'local', child.pane, '--name', 'helper']);
    expect(tracked.code, tracked.stderr).toBe(0);
    const run = await startPi(t, lead, { env: { HERDR_ENV: '' } });
    runs.push(run);
    await waitFor('the agent row', () => (widget(run).includes('RUNNING 1') ? true : undefined));
    await press(run, 'alt+j');
    expect(widget(run).find((line) => line.startsWith('  › '))).toMatch(/helper/);
    run.fake.editorAnswer = 'please rebase \u001b[31mnow';
    await press(run, 'alt+m');
    expect(run.fake.prompts.at(-1)).toBe('Message to helper');
    expect(run.fake.notifications.at(-1)?.message).toMatch(/^dogsled: sent m_\w+ to /);
    const inbox = JSON.parse((await runCli(['inbox', 'list', '--json'], t.envOf(child))).stdout);
    expect(inbox.received.map((r: { text: string }) => r.text)).toEqual(['please rebase now']);
    // An empty message sends nothing.
    run.fake.editorAnswer = '  ';
    await press(run, 'alt+m');
    const again = JSON.parse((await runCli(['inbox', 'list', '--json'], t.envOf(child))).stdout);
    expect(again.received).toHaveLength(1);

    const inHerdr = await startPi(t, lead, { name: 'herdr' });
    runs.push(inHerdr);
    await press(inHerdr, 'alt+j');
    expect(inHerdr.fake.notifications.at(-1)?.message).toBe(
      "dogsled: the board is in Herdr's sidebar: Alt+W opens it",
    );
    expect(inHerdr.fake.widgets.get('dogsled')).toBeUndefined();
  }, 90_000);
});

describe('the Todos view', () => {
  it('opens with /todos, Alt+T or Alt+] once pi-todo has shown a display; /todos list is plain', async () => {
    const run = await startPi(t, lead, { env: { HERDR_ENV: '' } });
    runs.push(run);
    await run.fake.commands.get('todos')?.handler('', run.fake.ctx);
    expect(run.fake.notifications.at(-1)?.message).toBe(
      'dogsled: no compatible pi-todo (protocol 3) is active',
    );
    run.fake.busEmit(TODO_DISPLAY_EVENT, {
      protocol: 3,
      revision: 1,
      branch: 'main',
      current: 'Write the parser',
      sections: [
        { kind: 'progress', done: 1, total: 4 },
        { kind: 'now', title: 'Now', lines: ['Write the parser'] },
        { kind: 'next', title: 'Next', lines: ['Test it', 'Land it'] },
        { kind: 'done', lines: ['Read the spec'] },
        { kind: 'dropped', lines: [] },
      ],
    });
    await waitFor('the display', () => (widget(run).includes('▸ Write the parser') ? true : undefined));
    await run.fake.commands.get('todos')?.handler('', run.fake.ctx);
    expect(widget(run).slice(-8)).toEqual([
      '▸ Write the parser',
      '  progress 1/4',
      '  NOW',
      '    Write the parser',
      '  NEXT',
      '    Test it',
      '    Land it',
      '  ▸ done 1',
    ]);
    await press(run, 'alt+]');
    expect(widget(run).at(-1)).toMatch(/^Alt\+J\/K select/);
    await press(run, 'alt+t');
    expect(widget(run).at(-1)).toBe('  ▸ done 1');
    await run.fake.commands.get('todos')?.handler('list', run.fake.ctx);
    expect(run.fake.notifications.at(-1)?.message).toBe(
      'progress 1/4\nNOW\n  Write the parser\nNEXT\n  Test it\n  Land it\nDONE\n  Read the spec\nDROPPED',
    );
  }, 60_000);
});
