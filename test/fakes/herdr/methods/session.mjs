// ping, session.snapshot, workspace.* and tab.* handlers.
import { ApiError } from '../lib/protocol.mjs';
import { agentInfo } from '../lib/records.mjs';

export function sessionMethods(model) {
  const orderedTabs = () => model.orderedTabs();
  const orderedPanes = () => model.orderedPanes();
  const listAgents = () => {
    model.agents.refreshAll();
    return orderedPanes()
      .filter((pane) => model.agents.hosts(pane))
      .map((pane) => agentInfo(model, pane));
  };

  return {
    ping: () => ({
      type: 'pong',
      version: model.options.version,
      protocol: model.options.protocol,
      capabilities: { live_handoff: true, detached_server_daemon: true },
    }),

    'session.snapshot': () => {
      model.agents.refreshAll();
      const ws = model.activeWorkspace();
      const focused = model.focusedPane();
      const snapshot = {
        version: model.options.version,
        protocol: model.options.protocol,
        workspaces: [...model.workspaces.values()].map((w) => model.workspaceInfo(w)),
        tabs: orderedTabs().map((tab) => model.tabInfo(tab)),
        panes: orderedPanes().map((pane) => model.paneInfo(pane)),
        layouts: orderedTabs().map((tab) => model.layout(tab)),
        agents: listAgents(),
      };
      if (ws) snapshot.focused_workspace_id = ws.id;
      if (ws?.activeTabId) snapshot.focused_tab_id = ws.activeTabId;
      if (focused) snapshot.focused_pane_id = focused.id;
      return { type: 'session_snapshot', snapshot };
    },

    'workspace.list': () => ({
      type: 'workspace_list',
      workspaces: [...model.workspaces.values()].map((ws) => model.workspaceInfo(ws)),
    }),

    'workspace.get': (p) => ({
      type: 'workspace_info',
      workspace: model.workspaceInfo(model.workspace(p.str('workspace_id'))),
    }),

    'workspace.create': async (p) => {
      const { ws, tab, pane } = await model.createWorkspace({
        cwd: p.optStr('cwd'),
        label: p.optStr('label'),
        focus: p.bool('focus'),
        env: p.strMap('env'),
      });
      return {
        type: 'workspace_created',
        workspace: model.workspaceInfo(ws),
        tab: model.tabInfo(tab),
        root_pane: model.paneInfo(pane),
      };
    },

    'workspace.close': (p) => {
      model.closeWorkspace(model.workspace(p.str('workspace_id')));
      return { type: 'ok' };
    },

    'workspace.focus': (p) => {
      const ws = model.workspace(p.str('workspace_id'));
      model.focusWorkspace(ws);
      return { type: 'workspace_info', workspace: model.workspaceInfo(ws) };
    },

    'tab.list': (p) => {
      const id = p.optStr('workspace_id');
      const tabs = id === undefined ? orderedTabs() : [...model.workspace(id).tabs.values()];
      return { type: 'tab_list', tabs: tabs.map((tab) => model.tabInfo(tab)) };
    },

    'tab.get': (p) => ({ type: 'tab_info', tab: model.tabInfo(model.tab(p.str('tab_id'))) }),

    'tab.create': async (p) => {
      const id = p.optStr('workspace_id');
      const ws = id === undefined ? model.activeWorkspace() : model.workspace(id);
      if (!ws) throw new ApiError('workspace_not_found', 'no active workspace');
      const { tab, pane } = await model.createTab(ws, {
        cwd: p.optStr('cwd'),
        label: p.optStr('label'),
        focus: p.bool('focus'),
        env: p.strMap('env'),
      });
      return { type: 'tab_created', tab: model.tabInfo(tab), root_pane: model.paneInfo(pane) };
    },

    'tab.close': (p) => {
      model.closeTab(model.tab(p.str('tab_id')));
      return { type: 'ok' };
    },

    'tab.focus': (p) => {
      const tab = model.tab(p.str('tab_id'));
      model.focusTab(tab);
      return { type: 'tab_info', tab: model.tabInfo(tab) };
    },
  };
}
