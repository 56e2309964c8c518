// Plugin manifests (`herdr-plugin.toml`, §5.1) validated in the order of Herdr's manifest.rs, and
// linking (validate, register, create the plugin's config/state dirs). Used by the server's
// `plugin.link` and the shim's offline `plugin link`; kept apart so the shim loads TOML only then.
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import { configDir, readRegistry, stateDir, writeRegistry } from './plugins.mjs';
import { ApiError } from './protocol.mjs';

const PLUGIN_ID = /^[A-Za-z0-9.:_-]{1,120}$/;

const ITEM_ID = /^[A-Za-z0-9:_-]+$/;

const PLATFORMS = ['linux', 'macos', 'windows'];

const PLACEMENTS = ['overlay', 'popup', 'split', 'tab', 'zoomed'];

function parseVersion(text) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  return match ? match.slice(1, 4).map(Number) : undefined;
}

function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function nonEmpty(value, code, message) {
  if (typeof value !== 'string' || value.trim() === '') throw new ApiError(code, message);
  return value.trim();
}

function platforms(value) {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((p) => !PLATFORMS.includes(p))) {
    throw new ApiError(
      'invalid_plugin_platform',
      'platforms must be a non-empty subset of linux, macos, windows',
    );
  }
  return value;
}

function command(value) {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((arg) => typeof arg !== 'string' || arg === '')
  ) {
    throw new ApiError('invalid_plugin_command', 'command must contain non-empty argv strings');
  }
  return value;
}

function itemId(value, code, what) {
  if (typeof value !== 'string' || !ITEM_ID.test(value.trim()))
    throw new ApiError(code, `invalid ${what} id`);
  return value.trim();
}

function noDuplicates(items, code, what) {
  const seen = new Set();
  for (const item of items) {
    if (seen.has(item.id)) throw new ApiError(code, `duplicate ${what} id ${item.id}`);
    seen.add(item.id);
  }
}

/** Reads and validates a manifest; returns an InstalledPluginInfo. */

export function loadManifest(path, { herdrVersion, enabled = true }) {
  let manifestPath = path;
  try {
    if (statSync(path).isDirectory()) manifestPath = join(path, 'herdr-plugin.toml');
    manifestPath = realpathSync(manifestPath);
  } catch (error) {
    throw new ApiError('plugin_manifest_not_found', error.message);
  }
  let raw;
  try {
    raw = readFileSync(manifestPath, 'utf8');
  } catch (error) {
    throw new ApiError('plugin_manifest_read_failed', error.message);
  }
  let manifest;
  try {
    manifest = parse(raw);
  } catch (error) {
    throw new ApiError('plugin_manifest_parse_failed', error.message.split('\n')[0]);
  }
  const id = typeof manifest.id === 'string' ? manifest.id.trim() : '';
  if (!PLUGIN_ID.test(id)) throw new ApiError('invalid_plugin_id', 'invalid plugin id');
  const name = nonEmpty(manifest.name, 'invalid_plugin_name', 'plugin name is required');
  const version = nonEmpty(manifest.version, 'invalid_plugin_version', 'plugin version is required');
  const minText = nonEmpty(
    manifest.min_herdr_version,
    'invalid_plugin_min_herdr_version',
    'plugin min_herdr_version is required',
  );
  const required = parseVersion(minText);
  if (!required) {
    throw new ApiError(
      'invalid_plugin_min_herdr_version',
      'plugin min_herdr_version must be a version like 0.8.0',
    );
  }
  const current = parseVersion(herdrVersion) ?? [0, 0, 0];
  if (compareVersions(required, current) > 0) {
    throw new ApiError('plugin_requires_newer_herdr', `plugin requires Herdr ${required.join('.')} or newer`);
  }
  const info = {
    plugin_id: id,
    name,
    version,
    min_herdr_version: required.join('.'),
    manifest_path: manifestPath,
    plugin_root: dirname(manifestPath),
    enabled,
    source: { kind: 'local' },
  };
  if (typeof manifest.description === 'string' && manifest.description.trim()) {
    info.description = manifest.description.trim();
  }
  const declared = platforms(manifest.platforms);
  if (declared) info.platforms = declared;
  const actions = (manifest.actions ?? []).map((action) => {
    const out = {
      id: itemId(action.id, 'invalid_plugin_action_id', 'action'),
      title: nonEmpty(action.title, 'invalid_plugin_action_title', 'action title is required'),
    };
    const own = platforms(action.platforms);
    if (own) out.platforms = own;
    out.command = command(action.command);
    return out;
  });
  noDuplicates(actions, 'duplicate_plugin_action_id', 'action');
  const panes = (manifest.panes ?? []).map((pane) => {
    const placement = pane.placement ?? 'overlay';
    if (!PLACEMENTS.includes(placement))
      throw new ApiError('plugin_manifest_parse_failed', `unknown placement ${placement}`);
    const out = {
      id: itemId(pane.id, 'invalid_plugin_pane_id', 'pane'),
      title: nonEmpty(pane.title, 'invalid_plugin_pane_title', 'pane title is required'),
      placement,
    };
    const own = platforms(pane.platforms);
    if (own) out.platforms = own;
    out.command = command(pane.command);
    if (placement !== 'popup' && (pane.width !== undefined || pane.height !== undefined)) {
      throw new ApiError(
        'invalid_plugin_pane_size',
        'pane width and height are only supported when placement is popup',
      );
    }
    if (pane.width !== undefined) out.width = pane.width;
    if (pane.height !== undefined) out.height = pane.height;
    return out;
  });
  noDuplicates(panes, 'duplicate_plugin_pane_id', 'pane');
  if (actions.length) info.actions = actions.sort((a, b) => a.id.localeCompare(b.id));
  if (panes.length) info.panes = panes.sort((a, b) => a.id.localeCompare(b.id));
  if (!declared) info.warnings = ['manifest does not declare platforms; platform support unknown'];
  return info;
}

export function linkPlugin(env, path, { herdrVersion, enabled }) {
  const info = loadManifest(path, { herdrVersion, enabled });
  const plugins = readRegistry(env).filter((plugin) => plugin.plugin_id !== info.plugin_id);
  plugins.push(info);
  writeRegistry(env, plugins);
  mkdirSync(join(configDir(env), 'plugins', 'config', info.plugin_id), { recursive: true });
  mkdirSync(join(stateDir(env), 'plugins', info.plugin_id), { recursive: true });
  return info;
}
