// `/dogsled`, the control panel (spec, "Pi"): four tabs, Status, Hosts, Profiles and Inbox, each
// the text of the dogsled command that owns it, read when the tab opens and again with `r`. It only
// reads: it never starts a process manager, edits todos or writes into a terminal. Host actions
// (reconnect, rename, enable, disable, add) need `dogsled machine`, which does not exist yet; the
// Hosts tab says so instead of pretending.

import { callDogsled, jsonOf } from './binary.js';
import type { PiDeps } from './deps.js';
import { textComponent } from './message.js';
import type { PiComponent, PiTheme, PiTui } from './pi-api.js';
import { hostLine } from './widget.js';

export const PANEL_TABS = ['Status', 'Hosts', 'Profiles', 'Inbox'] as const;
export type PanelTab = (typeof PANEL_TABS)[number];
/** Lines shown at once; j/k and the arrows scroll the rest. */
const VIEW_ROWS = 20;

const KEYS = {
  next: ['\t', '\x1b[C', 'l'],
  previous: ['\x1b[Z', '\x1b[D', 'h'],
  down: ['j', '\x1b[B'],
  up: ['k', '\x1b[A'],
  reload: ['r'],
  close: ['\x1b', 'q', '\x03'],
};

/** What one tab shows: the owning command's answer, or one line saying why there is none. */
export async function tabLines(deps: PiDeps, tab: PanelTab): Promise<string[]> {
  if (tab === 'Status') return textOf(await callDogsled(deps, ['status']));
  if (tab === 'Profiles') return textOf(await callDogsled(deps, ['profiles']));
  if (tab === 'Hosts') {
    const answer = jsonOf(await callDogsled(deps, ['status', '--json']));
    const hosts = (answer.value as { hosts?: unknown } | undefined)?.hosts;
    if (!Array.isArray(hosts)) return [`hosts unavailable: ${answer.why || 'no hosts in the answer'}`];
    return [
      ...hosts.map(hostLine),
      '',
      'reconnect, rename, enable, disable and add come with `dogsled machine`.',
    ];
  }
  const answer = jsonOf(await callDogsled(deps, ['inbox', 'list', '--json']));
  const lines = (answer.value as { lines?: unknown } | undefined)?.lines;
  if (!Array.isArray(lines)) return [`inbox unavailable: ${answer.why || 'no lines in the answer'}`];
  return lines.length === 0 ? ['nothing received'] : lines.map(String);
}

function textOf(result: { ok: boolean; stdout: string; why: string }): string[] {
  return result.ok ? result.stdout.trimEnd().split('\n') : [`unavailable: ${result.why}`];
}

export class Panel implements PiComponent {
  private tab = 0;
  private offset = 0;
  private lines: string[] = ['loading…'];
  private loading = 0;

  constructor(
    private readonly load: (tab: PanelTab) => Promise<string[]>,
    private readonly tui: PiTui,
    private readonly theme: PiTheme,
    private readonly done: () => void,
  ) {
    void this.reload();
  }

  current(): PanelTab {
    return PANEL_TABS[this.tab] as PanelTab;
  }

  render(width: number): string[] {
    const tabs = PANEL_TABS.map((name, i) => (i === this.tab ? `[${name}]` : ` ${name} `)).join(' ');
    const body = this.lines.slice(this.offset, this.offset + VIEW_ROWS);
    const more = this.lines.length - this.offset - body.length;
    const footer = `tab/←→ switch · j/k scroll · r reload · esc close${more > 0 ? ` · ${more} more below` : ''}`;
    return [
      ...textComponent([tabs], (line) => this.theme.fg('accent', line)).render(width),
      ...textComponent(body).render(width),
      ...textComponent([footer], (line) => this.theme.fg('dim', line)).render(width),
    ];
  }

  handleInput(data: string): void {
    if (KEYS.close.includes(data)) this.done();
    else if (KEYS.next.includes(data)) this.switchTo(this.tab + 1);
    else if (KEYS.previous.includes(data)) this.switchTo(this.tab + PANEL_TABS.length - 1);
    else if (KEYS.down.includes(data))
      this.offset = Math.min(Math.max(0, this.lines.length - 1), this.offset + 1);
    else if (KEYS.up.includes(data)) this.offset = Math.max(0, this.offset - 1);
    else if (KEYS.reload.includes(data)) void this.reload();
    this.tui.requestRender();
  }

  invalidate(): void {}

  private switchTo(index: number): void {
    this.tab = index % PANEL_TABS.length;
    void this.reload();
  }

  private async reload(): Promise<void> {
    const ticket = ++this.loading;
    const tab = this.current();
    this.lines = ['loading…'];
    this.offset = 0;
    const lines = await this.load(tab).catch((error: unknown) => [`unavailable: ${String(error)}`]);
    // A slower answer for a tab the user already left is dropped.
    if (ticket !== this.loading) return;
    this.lines = lines;
    this.tui.requestRender();
  }
}
