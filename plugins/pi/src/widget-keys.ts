// The widget's keys (spec, "Pi"): Alt+J/K move the selection, Alt+] changes views, Alt+I shows the
// selected row's details inline (or opens the folded DONE group), Alt+S stops the selected job and
// Alt+C cancels the selected queued ticket (each after a confirmation), Alt+M sends the selected
// agent a message; `/todos` and Alt+T open the Todos view, `/todos list` prints it plainly. Typing
// stays in the editor: these are Pi shortcuts, never a focused component. Each action goes through
// the dogsled MCP tools (read, stop, cancel, send), the code the CLI runs too.

import { clip, plainLine } from '../../../service/core/text/clean.js';
import type { PiDeps } from './deps.js';
import { callServerTool } from './mcp-tools.js';
import type { ExtensionAPI, ExtensionContext } from './pi-api.js';
import { type PickRow, pickRows, VIEWS, type WidgetFacts, type WidgetView } from './widget.js';

/** Lines of a read shown inline; the full output is one `dogsled logs` away. */
const DETAIL_LINES = 8;
const DETAIL_WIDTH = 160;

export interface WidgetHost {
  view: WidgetView;
  facts(): WidgetFacts;
  redraw(): void;
  /** Reads the board again now (after an action changed it). */
  refresh(): Promise<void>;
  /** Why the keys have no widget to act on (the board is in Herdr, the panel is open), or undefined. */
  elsewhere(): string | undefined;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** What Alt+I shows for a row: a read's newest lines and where the rest is, or why there is none. */
export async function rowDetails(deps: PiDeps, pick: PickRow, cwd: string): Promise<string[]> {
  const row = pick.row;
  if (pick.kind === 'ticket') {
    const place = typeof row.place === 'number' ? `place ${row.place} in the queue` : text(row.state);
    return [`ticket ${text(row.id)}: ${place}${row.reason ? ` (${text(row.reason)})` : ''}`].map((line) =>
      clip(plainLine(line), DETAIL_WIDTH),
    );
  }
  const target = pick.kind === 'job' ? text(row.job) || text(row.id) : text(row.item) || text(row.id);
  let report: { output?: unknown; reply?: unknown };
  try {
    report = JSON.parse(await callServerTool(deps, 'read', { target }, { cwd }));
  } catch (error) {
    return [clip(plainLine(error instanceof Error ? error.message : String(error)), DETAIL_WIDTH)];
  }
  const output = typeof report.output === 'string' ? report.output.split('\n') : ['(the pane is gone)'];
  const lines = output.filter((line) => line.trim() !== '').slice(-DETAIL_LINES);
  if (pick.kind === 'job') lines.push(`full output: dogsled logs ${target}`);
  else if (typeof report.reply === 'string') lines.push(`final reply: ${report.reply.split('\n')[0] ?? ''}`);
  return lines.map((line) => clip(plainLine(line), DETAIL_WIDTH));
}

export function registerWidgetKeys(pi: ExtensionAPI, deps: PiDeps, host: WidgetHost): void {
  const picks = () => pickRows(host.facts().board, host.view.doneOpen);
  const selected = (): PickRow | undefined => {
    const all = picks();
    return all[Math.min(host.view.selected, all.length - 1)];
  };
  /** The keys act on a drawn widget; elsewhere they say where the board is instead. */
  const usable = (ctx: ExtensionContext): boolean => {
    const why = host.elsewhere();
    if (why === undefined) return true;
    ctx.ui.notify(`dogsled: ${why}`, 'info');
    return false;
  };
  const key = (id: string, description: string, act: (ctx: ExtensionContext) => Promise<void> | void) =>
    pi.registerShortcut(id, {
      description,
      handler: async (ctx) => {
        if (!usable(ctx)) return;
        await act(ctx);
        host.redraw();
      },
    });
  const move = (by: number) => {
    const count = picks().length;
    host.view.expanded = true;
    host.view.view = 'work';
    host.view.details = undefined;
    host.view.selected = count === 0 ? 0 : Math.max(0, Math.min(count - 1, host.view.selected + by));
  };

  key('alt+j', 'dogsled: select the next row', () => move(1));
  key('alt+k', 'dogsled: select the previous row', () => move(-1));
  key('alt+]', 'dogsled: next view (Work, Todos)', () => {
    host.view.expanded = true;
    host.view.view = VIEWS[(VIEWS.indexOf(host.view.view) + 1) % VIEWS.length] ?? 'work';
  });
  key('alt+i', 'dogsled: details of the selected row', async (ctx) => {
    const pick = selected();
    if (pick === undefined) return;
    host.view.expanded = true;
    if (pick.kind === 'fold') {
      host.view.doneOpen = !host.view.doneOpen;
      return;
    }
    if (host.view.details !== undefined) {
      host.view.details = undefined;
      return;
    }
    host.view.details = ['reading…'];
    host.redraw();
    host.view.details = await rowDetails(deps, pick, ctx.cwd);
  });
  key('alt+s', 'dogsled: stop the selected job', async (ctx) => {
    const pick = selected();
    const job = pick?.kind === 'job' && pick.group !== 'done' ? text(pick.row.job) || text(pick.row.id) : '';
    if (job === '') return ctx.ui.notify('dogsled: Alt+S stops a job: select a running job first', 'info');
    if (
      !(await ctx.ui.confirm(
        'Stop job?',
        `Stop ${job}: ${clip(plainLine(text(pick?.row.title)), DETAIL_WIDTH)}`,
      ))
    )
      return;
    await act(ctx, 'stop', { job }, `stopped ${job}`);
  });
  key('alt+c', 'dogsled: cancel the selected queued ticket', async (ctx) => {
    const pick = selected();
    const ticket = pick?.kind === 'ticket' ? text(pick.row.ticket) || text(pick.row.id) : '';
    if (ticket === '')
      return ctx.ui.notify('dogsled: Alt+C cancels queued work: select a ticket first', 'info');
    if (
      !(await ctx.ui.confirm(
        'Cancel queued work?',
        `Cancel ${ticket}: ${clip(plainLine(text(pick?.row.title)), DETAIL_WIDTH)}`,
      ))
    )
      return;
    await act(ctx, 'cancel', { ticket }, `cancelled ${ticket}`);
  });
  key('alt+m', 'dogsled: message the selected agent', async (ctx) => {
    const pick = selected();
    const target = pick?.kind === 'agent' ? text(pick.row.pane) : '';
    if (target === '')
      return ctx.ui.notify('dogsled: Alt+M messages an agent: select one with a pane', 'info');
    const message = await ctx.ui.editor(`Message to ${clip(plainLine(text(pick?.row.title)), DETAIL_WIDTH)}`);
    if (message === undefined || message.trim() === '') return;
    await act(ctx, 'send', { target, message }, undefined);
  });

  async function act(ctx: ExtensionContext, tool: string, args: object, said: string | undefined) {
    try {
      const answer = await callServerTool(deps, tool, args, { cwd: ctx.cwd });
      ctx.ui.notify(`dogsled: ${said ?? clip(plainLine(answer), DETAIL_WIDTH)}`, 'info');
      await host.refresh();
    } catch (error) {
      ctx.ui.notify(
        clip(plainLine(error instanceof Error ? error.message : String(error)), DETAIL_WIDTH),
        'error',
      );
    }
  }

  const todosView = (ctx: ExtensionContext) => {
    if (!usable(ctx)) return;
    if (host.facts().todos === undefined) {
      ctx.ui.notify('dogsled: no compatible pi-todo (protocol 3) is active', 'info');
      return;
    }
    host.view.expanded = true;
    host.view.view = 'todos';
    host.redraw();
  };
  pi.registerShortcut('alt+t', { description: 'dogsled: the Todos view', handler: todosView });
  pi.registerCommand('todos', {
    description: 'The Todos view of the dogsled widget; `/todos list` prints the todos plainly',
    handler: async (args, ctx) => {
      if (args.trim() !== 'list') return todosView(ctx);
      const todos = host.facts().todos;
      if (todos === undefined)
        return ctx.ui.notify('todos: no compatible pi-todo (protocol 3) is active', 'info');
      const lines = todos.sections.flatMap((section) =>
        section.kind === 'progress'
          ? [`progress ${section.done ?? 0}/${section.total ?? 0}`]
          : [
              (section.title ?? section.kind).toUpperCase(),
              ...(section.lines ?? []).map((line) => `  ${line}`),
            ],
      );
      ctx.ui.notify(lines.join('\n'), 'info');
    },
  });
}
