// The /dogsled panel's actions against the fake Pi host and the built CLI: Status shows hosts with
// their retry state and the caller's rows, Enter reads a peer again (`dogsled retry`); Hosts runs
// `dogsled machine` verbs on `[[hosts]]`, asking for text through Pi's input, and shows the CLI's
// refusals; Profiles edits a profile's last prompt file through Pi's editor, atomically, and never
// a broken profile or a file that is not a regular file. The widget steps aside while it is open.

import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PiComponent } from '../../../plugins/pi/src/pi-api.js';
import { editPrompt } from '../../../service/actions/profile-prompt.js';
import { type PiRun, startPi } from '../../fakes/pi-api/harness.js';
import { runCli } from '../../helpers/cli.js';
import { type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';

// One sandbox and fake Herdr for the file: each test's Pi session runs in `lead` and ends with the
// test, and what a test writes to the box's config or profiles is removed after it.
let t: InboxBox;
let lead: PaneRef;
const runs: PiRun[] = [];
let sessions = 0;

beforeAll(async () => {
  t = await inboxBox();
  lead = await t.newPane();
});

afterEach(async () => {
  for (const run of runs.splice(0)) await run.fake.shutdown();
  await rm(t.box.configPath, { force: true });
  await rm(join(t.box.home, '.config', 'dogsled', 'profiles'), { recursive: true, force: true });
});

afterAll(async () => {
  await t?.close();
});

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

async function pi(env: NodeJS.ProcessEnv = {}): Promise<PiRun> {
  const run = await startPi(t, lead, { name: `pi-${++sessions}`, env });
  runs.push(run);
  return run;
}

/** The panel open now: an action that asks closes it and opens a new one where it was. */
const cur = (run: PiRun): PiComponent => {
  const panel = run.fake.customs.at(-1);
  if (panel === undefined) throw new Error('no panel');
  return panel;
};

/** Opens /dogsled and moves to `tab` (tab presses); resolves with its closing. */
async function openPanel(run: PiRun, tabs = 0): Promise<{ closed: Promise<void> }> {
  const closed = run.fake.commands.get('dogsled')?.handler('', run.fake.ctx) ?? Promise.resolve();
  await waitFor('the panel', () => run.fake.customs.at(-1));
  for (let i = 0; i < tabs; i++) cur(run).handleInput?.('\t');
  await loaded(run);
  // Wrapped: an async function returning the promise itself would wait for the panel to close.
  return { closed };
}

/** No control character reached the panel's lines; then Esc closes it. */
async function closeClean(run: PiRun, closed: Promise<void>): Promise<void> {
  expect(
    cur(run)
      .render(80)
      .every((line) => !CONTROL.test(line)),
  ).toBe(true);
  cur(run).handleInput?.('\x1b');
  await closed;
}

const body = (run: PiRun) => cur(run).render(200).slice(1, -1);

async function loaded(run: PiRun): Promise<string[]> {
  return waitFor('the tab', () => {
    const lines = body(run);
    return lines.some((line) => line.includes('loading…')) ? undefined : lines;
  });
}

/** Moves the selection to the row matching `pattern`, from the top. */
function selectRow(run: PiRun, pattern: RegExp): void {
  for (let i = 0; i < 40; i++) cur(run).handleInput?.('k');
  for (
    let i = 0;
    i < 40 &&
    !body(run)
      .find((line) => line.startsWith('›'))
      ?.match(pattern);
    i++
  )
    cur(run).handleInput?.('j');
  expect(body(run).find((line) => line.startsWith('›'))).toMatch(pattern);
}

/** Presses `key` and waits for the action's one line (the line above the footer). */
async function press(run: PiRun, key: string): Promise<string> {
  const panel = cur(run);
  const before = cur(run).render(200);
  cur(run).handleInput?.(key);
  return waitFor(`the answer to ${JSON.stringify(key)}`, () => {
    const now = cur(run);
    const lines = now.render(200);
    const said = lines.at(-2) ?? '';
    if (said === '…' || lines.some((line) => line.includes('loading…'))) return undefined;
    if (now !== panel) return said;
    return lines.length > before.length || said !== before.at(-2) ? said : undefined;
  });
}

const CONFIG = `# the fleet
[[hosts]]
id = "gone"
label = "gone-box"
target = "nobody@gone.invalid"
`;

describe('the Status tab', () => {
  it('shows hosts with their retry state, then the caller rows; Enter reads a peer again', async () => {
    await writeFile(t.box.configPath, CONFIG);
    const child = await t.newPane();
    await t.register(child);
    expect((await runCli(['track', 'local', child.pane, '--name', 'helper'], t.envOf(lead))).code).toBe(0);
    const run = await pi();
    const { closed } = await openPanel(run);
    const lines = await loaded(run);
    expect(lines[0]).toMatch(/^› local /);
    expect(lines[1]).toMatch(/^ {2}gone-box .* · unreachable: \S+/);
    expect(lines.join('\n')).toMatch(/helper/);
    expect(lines.findIndex((line) => /helper/.test(line))).toBeGreaterThan(1);
    // Enter on local says what it is; on the peer it runs `dogsled retry gone` and shows its line.
    expect(await press(run, '\r')).toBe('local: this host, read from its own files');
    selectRow(run, /gone-box/);
    expect(await press(run, '\r')).toMatch(/^dogsled: retry: gone-box: unreachable: /);
    await closeClean(run, closed);
  }, 60_000);
});

describe('the Hosts tab', () => {
  it('renames, disables, enables and adds through dogsled machine, and shows refusals in one line', async () => {
    await writeFile(t.box.configPath, CONFIG);
    const run = await pi();
    const { closed } = await openPanel(run, 1);
    expect(cur(run).render(200)[0]).toContain('[Hosts]');
    selectRow(run, /^› gone {2}gone-box {2}nobody@gone\.invalid {2}enabled$/);

    // n asks for the label through Pi's input; an escape in it is stripped before dogsled sees it.
    run.fake.inputAnswers = ['new-\u001b[31mname'];
    expect(await press(run, 'n')).toBe('renamed gone: new-name (nobody@gone.invalid, enabled)');
    expect(run.fake.prompts.at(-1)).toBe('New label for gone');
    // The input was asked with the panel closed (Pi puts its own editor back after a dialog), and
    // the panel opened again where it was, with the answer under the rows.
    expect(run.fake.dialogsOverCustom).toBe(0);
    expect(run.fake.openCustoms).toBe(1);
    expect(cur(run).render(200)[0]).toContain('[Hosts]');
    expect(body(run)[0]).toMatch(/^› gone {2}new-name /);
    expect(await readFile(t.box.configPath, 'utf8')).toContain('# the fleet');
    expect(await press(run, 'd')).toMatch(/^disabled gone: new-name /);
    expect(body(run)[0]).toMatch(/ disabled$/);
    expect(await press(run, 'e')).toMatch(/^enabled gone: /);

    // A label that looks like a flag is data (argv, after `--`).
    run.fake.inputAnswers = ['--help'];
    expect(await press(run, 'n')).toBe('renamed gone: --help (nobody@gone.invalid, enabled)');
    // A label dogsled refuses: its one line, and the config unchanged.
    const config = await readFile(t.box.configPath, 'utf8');
    run.fake.inputAnswers = ['local'];
    expect(await press(run, 'n')).toMatch(/^dogsled: machine: config .*: the edit would not load /);
    // A cancelled input asks dogsled nothing.
    run.fake.inputAnswers = [];
    expect(await press(run, 'n')).toBe('gone: not renamed');
    expect(await readFile(t.box.configPath, 'utf8')).toBe(config);

    // a: the target, then the label; a target ssh would take for an option is refused, as data.
    run.fake.inputAnswers = ['-oProxyCommand=touch /tmp/x', 'evil'];
    expect(await press(run, 'a')).toMatch(/^dogsled: machine: /);
    expect(await readFile(t.box.configPath, 'utf8')).toBe(config);
    run.fake.inputAnswers = ['me@second.invalid', 'second'];
    expect(await press(run, 'a')).toBe('added second: second (me@second.invalid, enabled)');
    expect(body(run).some((line) => /second {2}second {2}me@second\.invalid {2}enabled/.test(line))).toBe(
      true,
    );
    const listed = JSON.parse((await runCli(['machine', 'list', '--json'], t.envOf(lead))).stdout);
    expect(listed.hosts.map((h: { id: string }) => h.id)).toEqual(['gone', 'second']);
    await closeClean(run, closed);
  }, 60_000);
});

async function profile(name: string, data: unknown): Promise<string> {
  const dir = join(t.box.home, '.config', 'dogsled', 'profiles', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'profile.json'), typeof data === 'string' ? data : JSON.stringify(data));
  return dir;
}

describe('the Profiles tab', () => {
  it('edits the last prompt file through the editor, atomically; never a broken profile or a FIFO', async () => {
    const shared = join(t.box.home, '.config', 'dogsled', 'profiles', '_shared');
    await mkdir(shared, { recursive: true });
    await writeFile(join(shared, 'lead.md'), 'shared lead\n');
    const dir = await profile('writer', {
      description: 'Ordinary \u001b]0;pwned\u0007units',
      prompt: ['../_shared/lead.md', 'prompt.md'],
    });
    await writeFile(join(dir, 'prompt.md'), 'be brief\n', { mode: 0o640 });
    await chmod(join(dir, 'prompt.md'), 0o640);
    await profile('broken', '{"prompt": 3');
    const fifoDir = await profile('piped', { prompt: 'prompt.md' });
    await writeFile(join(fifoDir, 'prompt.md'), 'x\n');

    const run = await pi();
    const { closed } = await openPanel(run, 2);
    const lines = body(run);
    expect(lines.find((line) => /broken/.test(line))).toMatch(/^. broken {2}broken: /);
    expect(lines.find((line) => /writer/.test(line))).toBe('  writer  Ordinary units');

    // A broken profile: its reason, and no editor.
    selectRow(run, /^› broken/);
    expect(await press(run, '\r')).toMatch(/^broken {2}broken: .*not edited/);
    expect(run.fake.prompts).toEqual([]);

    // The writer: the editor opens on the last file, prefilled; the answer replaces it whole.
    selectRow(run, /^› writer/);
    run.fake.editorAnswer = 'be brief\nand kind\n';
    const file = join(dir, 'prompt.md');
    expect(await press(run, '\r')).toBe(`saved ${file}`);
    expect(run.fake.prompts.at(-1)).toBe('writer: prompt.md');
    expect(run.fake.editorPrefill).toBe('be brief\n');
    expect(run.fake.dialogsOverCustom).toBe(0);
    expect(body(run).find((line) => line.startsWith('›'))).toMatch(/^› writer/);
    expect(await readFile(file, 'utf8')).toBe('be brief\nand kind\n');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readFile(join(shared, 'lead.md'), 'utf8')).toBe('shared lead\n');
    expect((await readdir(dir)).sort()).toEqual(['profile.json', 'prompt.md']);
    // Closing the editor writes nothing.
    run.fake.editorAnswer = undefined;
    expect(await press(run, '\r')).toBe(`${file}: not changed (editor closed)`);

    // A prompt swapped for a FIFO after the tab was read: refused before any editor (it would hang).
    selectRow(run, /^› piped/);
    await rm(join(fifoDir, 'prompt.md'));
    execFileSync('mkfifo', [join(fifoDir, 'prompt.md')]);
    const asked = run.fake.prompts.length;
    cur(run).handleInput?.('r');
    await loaded(run);
    selectRow(run, /^› piped/);
    expect(body(run).find((line) => line.startsWith('›'))).toMatch(/broken: /);
    expect(await press(run, '\r')).toMatch(/not edited/);
    expect(run.fake.prompts).toHaveLength(asked);
    cur(run).handleInput?.('\x1b');
    await closed;
  }, 60_000);

  it('refuses a FIFO, a directory, and a file changed on disk while the editor was open', async () => {
    const dir = join(t.box.root, 'prompts');
    await mkdir(join(dir, 'a-dir'), { recursive: true });
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    const never = async () => {
      throw new Error('the editor must not open');
    };
    expect(await editPrompt('p', join(dir, 'fifo'), never)).toBe(
      `cannot edit ${join(dir, 'fifo')}: not a regular file`,
    );
    expect(await editPrompt('p', join(dir, 'a-dir'), never)).toMatch(/not a regular file$/);
    expect(await editPrompt('p', join(dir, 'missing'), never)).toMatch(/ENOENT/);

    const file = join(dir, 'prompt.md');
    await writeFile(file, 'one\n');
    const racing = async () => {
      await writeFile(file, 'someone else\n');
      return 'mine\n';
    };
    expect(await editPrompt('p', file, racing)).toBe(
      `${file}: changed on disk while it was open; not written`,
    );
    expect(await readFile(file, 'utf8')).toBe('someone else\n');

    // A symlinked prompt stays a link: its target is replaced.
    await writeFile(join(dir, 'real.md'), 'real\n');
    await symlink('real.md', join(dir, 'link.md'));
    expect(await editPrompt('p', join(dir, 'link.md'), async () => 'new\n')).toBe(
      `saved ${join(dir, 'link.md')}`,
    );
    expect(await readFile(join(dir, 'real.md'), 'utf8')).toBe('new\n');
  });
});

describe('the widget and the panel', () => {
  it('steps aside while the panel is open and comes back when it closes', async () => {
    const run = await pi({ HERDR_ENV: '' });
    await waitFor('the widget', () => (run.fake.widgets.get('dogsled')?.length ? true : undefined));
    const { closed } = await openPanel(run);
    expect(run.fake.widgets.get('dogsled')).toBeUndefined();
    await run.fake.shortcuts.get('alt+j')?.handler(run.fake.ctx);
    expect(run.fake.notifications.at(-1)?.message).toBe('dogsled: the /dogsled panel is open');
    expect(run.fake.widgets.get('dogsled')).toBeUndefined();
    cur(run).handleInput?.('q');
    await closed;
    expect(run.fake.widgets.get('dogsled')?.length).toBeGreaterThan(0);
  }, 60_000);
});
