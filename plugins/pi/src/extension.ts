// The dogsled extension for Pi: wires Pi's events to dogsled. Host status before each prompt
// (`hook context --harness pi`), the stop gate at `agent_before_settle` (`hook gate`), the inbox
// reader, todos publication, the widget or the Herdr board (/work, Alt+W; its keys: widget-keys.ts),
// the /dogsled panel, the MCP tools (mcp-tools.ts), and one version check against `dogsled --version`. Every dogsled call goes through $DOGSLED_BIN; a
// failing binary leaves the prompt unchanged. Without HERDR_PANE_ID it starts no process and no
// timer: the widget shows todos and says dogsled is unavailable.

import { connect } from 'node:net';
import { ownSocket } from '../../../service/actions/pi-extension.js';
import { stripEscapes } from '../../../service/core/text/clean.js';
import { callDogsled, HOOK_MS, jsonOf, lastLine } from './binary.js';
import { ownPane, type PiDeps } from './deps.js';
import { InboxReader } from './inbox-reader.js';
import { registerServerTools } from './mcp-tools.js';
import { inboxRenderer, MESSAGE_TYPE } from './message.js';
import { runPanel } from './panel.js';
import { loadTab } from './panel-tabs.js';
import type { ExtensionAPI, ExtensionContext } from './pi-api.js';
import {
  TODO_DISPLAY_EVENT,
  TODO_RELEASE_EVENT,
  TODO_REQUEST_EVENT,
  TodoPublisher,
  todoDisplay,
} from './todos.js';
import { initialView, WIDGET_KEY, widgetLines } from './widget.js';
import { registerWidgetKeys } from './widget-keys.js';

export const CONTEXT_TYPE = 'dogsled-context';
export const GATE_TYPE = 'dogsled-gate';
const STATUS_KEY = 'dogsled';
/** Agent and job data in the widget refresh this often (spec: "every ten seconds"). */
export const WIDGET_REFRESH_MS = 10_000;
/** How long a Herdr socket may take to accept before Pi counts as outside Herdr. */
const HERDR_PROBE_MS = 1_000;

/** HERDR_ENV=1 and a socket that accepts a connection: the board lives in Herdr, not in a widget. */
export function herdrReachable(env: NodeJS.ProcessEnv): Promise<boolean> {
  const path = ownSocket(env);
  if (path === null) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(HERDR_PROBE_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function dogsledExtension(deps: PiDeps): (pi: ExtensionAPI) => void {
  return (pi) => {
    const pane = ownPane(deps);
    let ctx: ExtensionContext | undefined;
    let reader: InboxReader | undefined;
    let refresher: NodeJS.Timeout | undefined;
    let inHerdr = false;
    const view = initialView();
    let panelOpen = false;
    /** Undefined until the first session start asked `dogsled --version`; false: no usable binary. */
    let usable: boolean | undefined;
    /** The MCP tools are registered once per process, from the binary's own `tools/list`. */
    let tools: Promise<void> | undefined;
    let facts: { hosts: unknown; board: unknown; unavailable: string | undefined } = {
      hosts: undefined,
      board: undefined,
      unavailable: pane === undefined ? 'not in a Herdr pane (no HERDR_PANE_ID)' : undefined,
    };

    const setStatus = (text: string | undefined) => ctx?.ui.setStatus(STATUS_KEY, text);
    const todos = new TodoPublisher(deps, (text) => setStatus(text));

    const drawWidget = () => {
      if (ctx === undefined || !ctx.hasUI) return;
      if (inHerdr || panelOpen) {
        ctx.ui.setWidget(WIDGET_KEY, undefined);
        return;
      }
      ctx.ui.setWidget(WIDGET_KEY, widgetLines({ ...facts, todos: todos.display() }, view));
    };

    const refresh = async () => {
      if (pane === undefined) return;
      const [status, board] = await Promise.all([
        callDogsled(deps, ['status', '--json']),
        callDogsled(deps, ['board', '--json', '--owner', pane]),
      ]);
      const hosts = jsonOf(status);
      facts = {
        hosts: hosts.value,
        board: jsonOf(board).value,
        unavailable: hosts.value === undefined ? hosts.why : undefined,
      };
      drawWidget();
    };

    const checkVersion = async (): Promise<boolean> => {
      if (usable !== undefined) return usable;
      const result = await callDogsled(deps, ['--version'], HOOK_MS);
      usable = result.ok;
      if (!result.ok) {
        setStatus(`dogsled unavailable: ${result.why}`);
        return false;
      }
      const theirs = lastLine(result.stdout);
      if (theirs !== deps.version) {
        ctx?.ui.notify(
          `dogsled: this Pi extension is ${deps.version} but \`dogsled --version\` says ${theirs}; install the same release of both`,
          'warning',
        );
      }
      return true;
    };

    pi.registerMessageRenderer(MESSAGE_TYPE, inboxRenderer(deps.now));

    pi.events.on(TODO_DISPLAY_EVENT, (payload) => {
      const display = todoDisplay(payload);
      if (display === undefined) return;
      void todos.update(display, ctx?.sessionManager.getSessionId() ?? 'unknown').then(drawWidget);
    });

    pi.events.on(TODO_RELEASE_EVENT, () => {
      void todos.remove().then(drawWidget);
    });
    // Todos follow the active session branch: after a switch, fork or tree move, ask pi-todo again.
    for (const event of ['session_switch', 'session_fork', 'session_tree'] as const) {
      pi.on(event, async (_event, next) => {
        ctx = next;
        pi.events.emit(TODO_REQUEST_EVENT, { protocol: 3 });
        return undefined;
      });
    }

    pi.on('session_start', async (_event, next) => {
      ctx = next;
      const ok = await checkVersion();
      // The bus does not replay: ask a pi-todo that loaded first to say what it shows.
      pi.events.emit(TODO_REQUEST_EVENT, { protocol: 3 });
      // Only in a Herdr pane: outside one the extension runs nothing but `--version` (spec), and the
      // pane is who owns what a tool starts.
      if (ok && pane !== undefined && tools === undefined) {
        tools = registerServerTools(pi, deps).then(
          () => undefined,
          (error: unknown) => {
            tools = undefined;
            setStatus(`dogsled tools unavailable: ${error instanceof Error ? error.message : String(error)}`);
          },
        );
        await tools;
      }
      if (pane === undefined || !ok) {
        drawWidget();
        return;
      }
      inHerdr = await herdrReachable(deps.env);
      drawWidget();
      if (!inHerdr && refresher === undefined) {
        void refresh();
        refresher = setInterval(() => void refresh(), WIDGET_REFRESH_MS);
        refresher.unref();
      }
      if (reader === undefined) {
        reader = new InboxReader(pi, deps, () => ctx, setStatus);
        await reader.start();
      }
    });

    pi.on('session_shutdown', async () => {
      reader?.stop();
      reader = undefined;
      if (refresher !== undefined) clearInterval(refresher);
      refresher = undefined;
      await todos.remove();
    });

    for (const event of ['message_end', 'turn_end', 'agent_end', 'agent_settled'] as const) {
      pi.on(event as 'turn_end', async () => {
        reader?.sessionChanged();
        return undefined;
      });
    }

    pi.on('before_agent_start', async () => {
      if (pane === undefined) return undefined;
      const result = await callDogsled(deps, ['hook', 'context', '--harness', 'pi'], HOOK_MS);
      const text = result.ok ? stripEscapes(result.stdout).trim() : '';
      if (text === '') return undefined;
      return { message: { customType: CONTEXT_TYPE, content: text, display: false } };
    });

    pi.on('agent_before_settle', async (event) => {
      // Errors, aborts and boundaries that already continue the run skip the gate (spec).
      if (pane === undefined || event.outcome !== 'completed' || event.continue) return undefined;
      const result = await callDogsled(deps, ['hook', 'gate'], HOOK_MS);
      const text = result.ok ? stripEscapes(result.stdout).trim() : '';
      if (text === '') return undefined;
      const reminder = {
        type: 'custom_message' as const,
        customType: GATE_TYPE,
        content: text,
        display: true,
      };
      return { entries: [...(event.entries ?? []), reminder], continue: true };
    });

    const work = async (here: ExtensionContext) => {
      ctx ??= here;
      if (pane !== undefined && inHerdr) {
        const opened = await callDogsled(deps, ['board', '--open']);
        if (opened.ok) return;
        here.ui.notify(`dogsled: board --open: ${opened.why}`, 'warning');
      }
      view.expanded = !view.expanded;
      drawWidget();
    };
    pi.registerCommand('work', {
      description: 'Open or reuse the dogsled board in Herdr; outside Herdr, expand or collapse the widget',
      handler: (_args, here) => work(here),
    });
    pi.registerShortcut('alt+w', { description: 'dogsled board or widget', handler: (here) => work(here) });

    registerWidgetKeys(pi, deps, {
      view,
      facts: () => ({ ...facts, todos: todos.display() }),
      redraw: drawWidget,
      refresh,
      elsewhere: () =>
        ctx?.hasUI === false
          ? 'no UI to draw the widget in'
          : inHerdr
            ? "the board is in Herdr's sidebar: Alt+W opens it"
            : panelOpen
              ? 'the /dogsled panel is open'
              : undefined,
    });

    pi.registerCommand('dogsled', {
      description: 'dogsled panel: Status, Hosts, Profiles, Inbox',
      handler: async (_args, here) => {
        ctx ??= here;
        if (!here.hasUI) return;
        panelOpen = true;
        drawWidget();
        try {
          await runPanel(here.ui, (tab) => loadTab(deps, here.ui, tab));
        } finally {
          panelOpen = false;
          drawWidget();
        }
      },
    });
  };
}
