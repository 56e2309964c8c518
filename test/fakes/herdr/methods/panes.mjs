// pane.* handlers (list, get, rename, current, split, close, focus, read, process_info, layout,
// swap, send_input) and layout.set_split_ratio.
import { encodeKey } from '../lib/keys.mjs';
import { clampRatio, describe, neighbour, splitAt, swapLeaves, withRatioAt } from '../lib/layout.mjs';
import { groupMembers, processRecord, readStat } from '../lib/procfs.mjs';
import { ApiError, READ_SOURCES } from '../lib/protocol.mjs';

/** Reads a pane's output as `pane.read` (and `agent.read`) answer it. */
export function readPane(pane, p) {
  const source = p.enumOf('source', READ_SOURCES);
  const format = p.optEnum('format', ['text', 'ansi'], 'text');
  const { text, truncated } = pane.terminal.process.screen.read({
    source,
    lines: p.optUint('lines'),
    format,
    stripAnsi: p.bool('strip_ansi', true),
  });
  return {
    type: 'pane_read',
    read: {
      pane_id: pane.id,
      workspace_id: pane.workspaceId,
      tab_id: pane.tabId,
      source,
      format,
      text,
      revision: 0,
      truncated,
    },
  };
}

export function panesMethods(model) {
  const focusedOrThrow = () => {
    const pane = model.focusedPane();
    if (!pane) throw new ApiError('no_active_pane', 'no active pane');
    return pane;
  };
  const paneOrFocused = (p, key) => (p.has(key) ? model.pane(p.str(key)) : focusedOrThrow());

  return {
    'pane.list': (p) => {
      const id = p.optStr('workspace_id');
      const panes =
        id === undefined
          ? model.orderedPanes()
          : [...model.workspace(id).tabs.values()].flatMap((tab) => model.tabPanes(tab));
      for (const pane of panes) model.agents.refresh(pane);
      return { type: 'pane_list', panes: panes.map((pane) => model.paneInfo(pane)) };
    },

    'pane.get': (p) => {
      const pane = model.pane(p.str('pane_id'));
      model.agents.refresh(pane);
      return { type: 'pane_info', pane: model.paneInfo(pane) };
    },

    // Herdr's manual label: a blank or absent label clears it.
    'pane.rename': (p) => {
      const pane = model.pane(p.str('pane_id'));
      const label = p.optStr('label')?.trim();
      pane.label = label ? label : undefined;
      return { type: 'pane_info', pane: model.paneInfo(pane) };
    },

    'pane.current': (p) => {
      const id = p.optStr('caller_pane_id');
      const pane = id === undefined ? model.focusedPane() : model.panes.get(id);
      if (!pane) throw new ApiError('pane_not_found', `pane ${id ?? '(focused)'} not found`);
      return { type: 'pane_current', pane: model.paneInfo(pane) };
    },

    'pane.split': async (p) => {
      const direction = p.enumOf('direction', ['right', 'down']);
      let target;
      if (p.has('target_pane_id')) target = model.pane(p.str('target_pane_id'));
      else {
        const wsId = p.optStr('workspace_id');
        const ws = wsId === undefined ? model.activeWorkspace() : model.workspace(wsId);
        target = ws && model.focusedPaneOf(ws);
        if (!target) throw new ApiError('pane_not_found', 'no pane to split');
      }
      const pane = await model.splitPane(target, {
        direction,
        ratio: p.optNum('ratio', 0.5),
        cwd: p.optStr('cwd'),
        focus: p.bool('focus'),
        env: p.strMap('env'),
      });
      return { type: 'pane_info', pane: model.paneInfo(pane) };
    },

    'pane.close': (p) => {
      model.removePane(model.pane(p.str('pane_id')));
      return { type: 'ok' };
    },

    'pane.focus': (p) => {
      const pane = model.pane(p.str('pane_id'));
      model.focusPane(pane);
      return { type: 'pane_info', pane: model.paneInfo(pane) };
    },

    'pane.read': (p) => readPane(model.pane(p.str('pane_id')), p),

    'pane.process_info': (p) => {
      const pane = paneOrFocused(p, 'pane_id');
      const pid = pane.terminal.process.exited ? undefined : pane.terminal.process.pid;
      const info = { pane_id: pane.id, foreground_processes: [] };
      const stat = pid === undefined ? undefined : readStat(pid);
      if (stat) {
        info.shell_pid = pid;
        const group = stat.tpgid > 0 ? stat.tpgid : pid;
        info.foreground_process_group_id = group;
        info.foreground_processes = groupMembers(group)
          .map((member) => processRecord(member))
          .filter(Boolean);
      }
      return { type: 'pane_process_info', process_info: info };
    },

    'pane.layout': (p) => {
      const pane = paneOrFocused(p, 'pane_id');
      const tab = model.tab(pane.tabId);
      if (!tab.root) throw new ApiError('pane_layout_unavailable', 'pane has no layout');
      return { type: 'pane_layout', layout: model.layout(tab) };
    },

    'pane.swap': (p) => {
      const byDirection = p.has('pane_id') || p.has('direction');
      const byPair = p.has('source_pane_id') || p.has('target_pane_id');
      if (byDirection === byPair) {
        throw new ApiError(
          'invalid_pane_swap',
          'give pane_id and direction, or source_pane_id and target_pane_id',
        );
      }
      const source = model.pane(byDirection ? p.str('pane_id') : p.str('source_pane_id'));
      const tab = model.tab(source.tabId);
      let targetId;
      let reason;
      if (byDirection) {
        targetId = neighbour(
          tab.root,
          model.area(),
          source.id,
          p.enumOf('direction', ['left', 'right', 'up', 'down']),
        );
        if (!targetId) reason = 'no_neighbor';
      } else {
        targetId = p.str('target_pane_id');
        const target = model.panes.get(targetId);
        if (!target) reason = 'not_found';
        else if (target === source) reason = 'same_pane';
        else if (target.tabId !== source.tabId) reason = 'cross_tab';
      }
      if (!reason) {
        tab.root = swapLeaves(tab.root, source.id, targetId);
        model.events.emit('layout_updated', { layout: model.layout(tab) });
      }
      const swap = {
        changed: !reason,
        source_pane_id: source.id,
        focused_pane_id: tab.focusedPaneId,
        layout: model.layout(tab),
      };
      if (reason) swap.reason = reason;
      if (targetId) swap.target_pane_id = targetId;
      return { type: 'pane_swap', swap };
    },

    'pane.send_input': (p) => {
      const pane = model.pane(p.str('pane_id'));
      const text = p.optStr('text', '');
      let bytes = text;
      for (const key of p.strArray('keys')) {
        const encoded = encodeKey(key);
        if (encoded === undefined) throw new ApiError('invalid_key', `unsupported key ${key}`);
        bytes += encoded;
      }
      if (bytes !== '' && !pane.terminal.process.write(bytes)) {
        throw new ApiError('pane_send_failed', `pane ${pane.id} has no running process`);
      }
      return { type: 'ok' };
    },

    'layout.set_split_ratio': (p) => {
      const path = p.boolArray('path');
      const ratio = p.num('ratio');
      let tab;
      if (p.has('tab_id')) tab = model.tab(p.str('tab_id'));
      else if (p.has('pane_id')) tab = model.tab(model.pane(p.str('pane_id')).tabId);
      else {
        const ws = model.activeWorkspace();
        tab = ws?.tabs.get(ws.activeTabId);
      }
      if (!tab?.root) throw new ApiError('layout_not_found', 'layout not found');
      if (!Number.isFinite(ratio)) throw new ApiError('invalid_ratio', 'ratio must be a finite number');
      if (!splitAt(tab.root, path)) throw new ApiError('split_not_found', 'split path not found');
      tab.root = withRatioAt(tab.root, path, clampRatio(ratio));
      model.events.emit('layout_updated', { layout: model.layout(tab) });
      return {
        type: 'layout_split_ratio_set',
        layout: {
          workspace_id: tab.workspaceId,
          tab_id: tab.id,
          zoomed: tab.zoomed,
          focused_pane_id: tab.focusedPaneId,
          root: describe(tab.root),
        },
      };
    },
  };
}
