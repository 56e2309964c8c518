// What each tab of the /dogsled panel shows and what its keys do (spec, "Pi"): Status (hosts with
// their retry state, then the caller's rows; Enter reads a peer again with `dogsled retry`), Hosts
// (`dogsled machine list`, and reconnect, rename, enable, disable, add), Profiles (Enter edits the
// last prompt file) and Inbox. Every action is a `dogsled` argv, so a refusal is the CLI's one line.

import { editPrompt } from '../../../service/actions/profile-prompt.js';
import { formatAge } from '../../../service/core/common/duration.js';
import { plainLine } from '../../../service/core/text/clean.js';
import { callDogsled, jsonOf, lastLine } from './binary.js';
import { ownPane, type PiDeps } from './deps.js';
import type { ExtensionUIContext } from './pi-api.js';
import { boardLines, hostLine } from './widget.js';

export const PANEL_TABS = ['Status', 'Hosts', 'Profiles', 'Inbox'] as const;
export type PanelTab = (typeof PANEL_TABS)[number];

/**
 * An action: runs, then says in one line what happened. One that `asks` (Pi's input or editor) runs
 * with the panel closed: Pi puts its own editor back when a dialog ends, which would orphan the panel.
 */
export interface PanelAction {
  run(): Promise<string>;
  asks?: boolean;
}

const does = (run: () => Promise<string>): PanelAction => ({ run });
const asks = (run: () => Promise<string>): PanelAction => ({ run, asks: true });

export interface PanelRow {
  text: string;
  /** Keys that act on this row when it is selected (`\r` is Enter). */
  keys?: Record<string, PanelAction>;
}

export interface TabView {
  rows: PanelRow[];
  /** What the tab's keys are, for the footer. */
  hint?: string;
  /** Keys that act whatever row is selected (Hosts' add). */
  keys?: Record<string, PanelAction>;
}

const ENTER = ['\r', '\n'];
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const lines = (rows: string[]): PanelRow[] => rows.map((text) => ({ text }));

/** The CLI's answer as one line: its last line when it worked, its one-line refusal when not. */
async function run(deps: PiDeps, args: string[], done?: string): Promise<string> {
  const result = await callDogsled(deps, args);
  if (!result.ok) return result.why;
  return done ?? (lastLine(result.stdout) || 'done');
}

function on(keys: string[], action: PanelAction): Record<string, PanelAction> {
  return Object.fromEntries(keys.map((key) => [key, action]));
}

export async function loadTab(deps: PiDeps, ui: ExtensionUIContext, tab: PanelTab): Promise<TabView> {
  if (tab === 'Status') return statusTab(deps);
  if (tab === 'Hosts') return hostsTab(deps, ui);
  if (tab === 'Profiles') return profilesTab(deps, ui);
  const answer = jsonOf(await callDogsled(deps, ['inbox', 'list', '--json']));
  const received = (answer.value as { lines?: unknown } | undefined)?.lines;
  if (!Array.isArray(received)) return { rows: lines([`inbox unavailable: ${answer.why || 'no lines'}`]) };
  return { rows: lines(received.length === 0 ? ['nothing received'] : received.map(String)) };
}

interface HostFacts {
  id?: unknown;
  label?: unknown;
  unreachable?: unknown;
  retry_ms?: unknown;
}

/** `netcup  ? no reply · unreachable: timeout · retry in 40s`: the host line and its read state. */
export function retryState(host: HostFacts): string {
  const category = str(host.unreachable);
  if (category === '') return '';
  const retry = typeof host.retry_ms === 'number' ? ` · retry in ${formatAge(host.retry_ms)}` : '';
  return ` · unreachable: ${category}${retry}`;
}

async function statusTab(deps: PiDeps): Promise<TabView> {
  const pane = ownPane(deps);
  const [status, board] = await Promise.all([
    callDogsled(deps, ['status', '--json']),
    pane === undefined ? undefined : callDogsled(deps, ['board', '--json', '--owner', pane]),
  ]);
  const answer = jsonOf(status);
  const hosts = (answer.value as { hosts?: unknown } | undefined)?.hosts;
  const rows: PanelRow[] = [];
  if (!Array.isArray(hosts)) rows.push({ text: `hosts unavailable: ${answer.why || 'no hosts'}` });
  else
    for (const host of hosts as HostFacts[]) {
      const id = str(host.id);
      const label = plainLine(str(host.label) || id);
      const retry = does(
        id === 'local'
          ? async () => `${label}: this host, read from its own files`
          : () => run(deps, ['retry', '--', id]),
      );
      rows.push({ text: plainLine(`${hostLine(host)}${retryState(host)}`), keys: on(ENTER, retry) });
    }
  rows.push({ text: '' });
  if (board === undefined) rows.push({ text: 'your rows: not in a Herdr pane (no HERDR_PANE_ID)' });
  else {
    const work = jsonOf(board);
    rows.push(
      ...lines(work.value === undefined ? [`your rows unavailable: ${work.why}`] : boardLines(work.value)),
    );
  }
  return { rows, hint: 'enter reads a host again' };
}

interface MachineFacts {
  id?: unknown;
  label?: unknown;
  target?: unknown;
  enabled?: unknown;
}

/** One line of text from the user, escape-free; undefined when cancelled or empty. */
async function ask(ui: ExtensionUIContext, title: string, placeholder?: string): Promise<string | undefined> {
  const answer = await ui.input(title, placeholder);
  const text = answer === undefined ? '' : plainLine(answer).trim();
  return text === '' ? undefined : text;
}

async function hostsTab(deps: PiDeps, ui: ExtensionUIContext): Promise<TabView> {
  const add = asks(async () => {
    const target = await ask(ui, 'Add a host: its SSH target', 'user@host');
    if (target === undefined) return 'add: nothing added';
    const label = await ask(ui, `Label for ${target} (empty: none)`);
    return run(deps, ['machine', 'add', ...(label === undefined ? [] : [`--label=${label}`]), '--', target]);
  });
  const keys = { a: add };
  const hint = 'c reconnect · n rename · e enable · d disable · a add';
  const answer = jsonOf(await callDogsled(deps, ['machine', 'list', '--json']));
  const value = answer.value as { source?: unknown; hosts?: unknown } | undefined;
  if (!Array.isArray(value?.hosts))
    return { rows: lines([`hosts unavailable: ${answer.why || 'no hosts'}`]), hint, keys };
  const from = value.source === 'herdr' ? "Herdr's saved machines" : '[[hosts]] in the config';
  const rows: PanelRow[] = [];
  for (const host of value.hosts as MachineFacts[]) {
    const id = str(host.id);
    const label = str(host.label);
    const state = host.enabled === false ? 'disabled' : 'enabled';
    const verb = (name: string) => does(() => run(deps, ['machine', name, '--', id]));
    const rename = asks(async () => {
      const next = await ask(ui, `New label for ${plainLine(id)}`, plainLine(label));
      if (next === undefined) return `${plainLine(id)}: not renamed`;
      return run(deps, ['machine', 'rename', '--', id, next]);
    });
    rows.push({
      text: plainLine(`${id}  ${label}  ${str(host.target)}  ${state}`),
      keys: { c: verb('reconnect'), n: rename, e: verb('enable'), d: verb('disable') },
    });
  }
  if (rows.length === 0) rows.push({ text: 'no peers yet: a adds one' });
  return { rows: [...rows, { text: '' }, { text: `(${from})` }], hint, keys };
}

interface ProfileFacts {
  name?: unknown;
  description?: unknown;
  prompt?: unknown;
  broken?: unknown;
}

async function profilesTab(deps: PiDeps, ui: ExtensionUIContext): Promise<TabView> {
  const answer = jsonOf(await callDogsled(deps, ['profiles', '--json']));
  const value = answer.value as { dir?: unknown; profiles?: unknown } | undefined;
  if (!Array.isArray(value?.profiles))
    return { rows: lines([`profiles unavailable: ${answer.why || 'no profiles'}`]) };
  const rows = (value.profiles as ProfileFacts[]).map((profile): PanelRow => {
    const name = plainLine(str(profile.name));
    const broken = str(profile.broken);
    if (broken !== '') {
      const text = `${name}  broken: ${plainLine(broken)}`;
      return {
        text,
        keys: on(
          ENTER,
          does(async () => `${text} (fix profile.json; not edited)`),
        ),
      };
    }
    const prompts = Array.isArray(profile.prompt) ? profile.prompt.filter((p) => typeof p === 'string') : [];
    const last = prompts.at(-1);
    const edit =
      last === undefined
        ? does(async () => `${name}: no prompt file to edit`)
        : asks(() => editPrompt(name, last, (title, prefill) => ui.editor(title, prefill)));
    return { text: plainLine(`${name}  ${str(profile.description)}`), keys: on(ENTER, edit) };
  });
  if (rows.length === 0) rows.push({ text: `no profiles in ${plainLine(str(value.dir))}` });
  return { rows, hint: 'enter edits the prompt' };
}
