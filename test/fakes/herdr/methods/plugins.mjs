// plugin.link, plugin.list and plugin panes (§5.3): every open creates a NEW pane labelled with the
// manifest pane title and running its command from the plugin root; only panes opened this way
// are plugin panes for plugin.pane.close/focus.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { linkPlugin, loadManifest } from '../lib/manifest.mjs';
import { platformSupported, readRegistry, stateDir } from '../lib/plugins.mjs';
import { ApiError, compact } from '../lib/protocol.mjs';
import { paneCwd, workspaceLabel } from '../lib/records.mjs';

const PLACEMENTS = ['overlay', 'popup', 'split', 'tab', 'zoomed'];

function invalid(message) {
  return new ApiError('invalid_params', message);
}

/** HERDR_PLUGIN_CONTEXT_JSON for a plugin pane opened now. */
function pluginContext(model) {
  const ws = model.activeWorkspace();
  const tab = ws?.tabs.get(ws.activeTabId);
  const pane = model.focusedPane();
  const view = pane && model.agents.view(pane);
  return compact({
    workspace_id: ws?.id,
    workspace_label: ws && workspaceLabel(ws),
    workspace_cwd: ws?.cwd,
    worktree: ws?.worktree,
    tab_id: tab?.id,
    tab_label: tab && model.tabInfo(tab).label,
    focused_pane_id: pane?.id,
    focused_pane_cwd: pane && paneCwd(pane),
    focused_pane_agent: view?.kind,
    focused_pane_status: view?.status,
    invocation_source: 'api',
  });
}

export function pluginsMethods(model) {
  const env = model.options.env;
  const version = model.options.version;

  const pluginPane = (pane) => ({
    plugin_id: pane.plugin.plugin_id,
    entrypoint: pane.plugin.entrypoint,
    pane: model.paneInfo(pane),
  });

  const recordedPluginPane = (id) => {
    const pane = model.panes.get(id);
    if (!pane?.plugin) throw new ApiError('plugin_pane_not_found', `pane ${id} is not a plugin pane`);
    return pane;
  };

  return {
    'plugin.link': (p) => {
      const path = p.str('path');
      const enabled = p.bool('enabled', true);
      const plugin = linkPlugin(env, isAbsolute(path) ? path : resolve(process.cwd(), path), {
        herdrVersion: version,
        enabled,
      });
      return { type: 'plugin_linked', plugin };
    },

    'plugin.list': (p) => {
      const id = p.optStr('plugin_id');
      const plugins = readRegistry(env).filter((plugin) => id === undefined || plugin.plugin_id === id);
      return { type: 'plugin_list', plugins };
    },

    'plugin.pane.open': async (p) => {
      const pluginId = p.str('plugin_id');
      const entrypoint = p.str('entrypoint');
      const placementParam = p.optEnum('placement', PLACEMENTS);
      const hasSize = p.has('width') || p.has('height');
      const workspaceId = p.optStr('workspace_id');
      const targetId = p.optStr('target_pane_id');
      const direction = p.optEnum('direction', ['right', 'down']);
      const focus = p.bool('focus');
      const callerEnv = p.strMap('env');
      const cwdParam = p.optStr('cwd');
      const plugin = readRegistry(env).find((entry) => entry.plugin_id === pluginId);
      if (!plugin) throw new ApiError('plugin_not_found', `plugin ${pluginId} not found`);
      if (!plugin.enabled) throw new ApiError('plugin_disabled', `plugin ${pluginId} is disabled`);
      let manifest;
      try {
        manifest = loadManifest(plugin.manifest_path, { herdrVersion: version });
      } catch (error) {
        throw new ApiError('plugin_manifest_unavailable', error.message);
      }
      const entry = (manifest.panes ?? []).find((pane) => pane.id === entrypoint);
      if (!entry) throw new ApiError('plugin_pane_not_found', `plugin ${pluginId} has no pane ${entrypoint}`);
      if (!platformSupported(entry.platforms ?? manifest.platforms)) {
        throw new ApiError('platform_unsupported', `pane ${entrypoint} does not support linux`);
      }
      const placement = placementParam ?? entry.placement;
      if (hasSize && placement !== 'popup') throw invalid('width and height apply only to popup placement');
      if ((placement === 'overlay' || placement === 'popup') && (workspaceId || targetId || direction)) {
        throw invalid(`${placement} placement takes no workspace_id, target_pane_id or direction`);
      }
      if ((placement === 'split' || placement === 'zoomed') && workspaceId) {
        throw invalid(`${placement} placement takes no workspace_id`);
      }
      if (placement === 'tab' && (targetId || direction)) {
        throw invalid('tab placement takes no target_pane_id or direction');
      }
      if (placement === 'popup') return { type: 'ok' };

      const root = manifest.plugin_root;
      const [program, ...args] = entry.command;
      const relative = !isAbsolute(program) && (program.includes('/') || existsSync(join(root, program)));
      const command = [relative ? join(root, program) : program, ...args];
      const cwd = model.resolveCwd(cwdParam, root, 'plugin_pane_open_failed');
      const paneEnv = {
        ...callerEnv,
        HERDR_PLUGIN_ID: pluginId,
        HERDR_PLUGIN_ROOT: root,
        HERDR_PLUGIN_CONFIG_DIR: join(model.options.configDir, 'plugins', 'config', pluginId),
        HERDR_PLUGIN_STATE_DIR: join(stateDir(env), 'plugins', pluginId),
        HERDR_PLUGIN_ENTRYPOINT_ID: entrypoint,
        HERDR_PLUGIN_CONTEXT_JSON: JSON.stringify(pluginContext(model)),
      };
      const spec = {
        cwd,
        env: paneEnv,
        command,
        label: entry.title,
        plugin: { plugin_id: pluginId, entrypoint },
      };
      let pane;
      if (placement === 'tab') {
        const ws = workspaceId === undefined ? model.activeWorkspace() : model.workspace(workspaceId);
        if (!ws) throw new ApiError('no_active_workspace', 'no active workspace');
        ({ pane } = await model.createTab(ws, { ...spec, label: undefined, paneLabel: entry.title, focus }));
      } else {
        const target = targetId === undefined ? model.focusedPane() : model.pane(targetId);
        if (!target) throw new ApiError('no_active_pane', 'no active pane');
        pane =
          placement === 'overlay'
            ? await model.overlayPane(target, { ...spec, focus })
            : await model.splitPane(target, {
                ...spec,
                direction: direction ?? 'right',
                focus: focus || placement === 'zoomed',
                zoom: placement === 'zoomed',
              });
      }
      return { type: 'plugin_pane_opened', plugin_pane: pluginPane(pane) };
    },

    'plugin.pane.close': (p) => {
      const pane = recordedPluginPane(p.str('pane_id'));
      model.removePane(pane);
      return { type: 'plugin_pane_closed', pane_id: pane.id };
    },

    'plugin.pane.focus': (p) => {
      const pane = recordedPluginPane(p.str('pane_id'));
      model.focusPane(pane);
      return { type: 'plugin_pane_focused', plugin_pane: pluginPane(pane) };
    },
  };
}
