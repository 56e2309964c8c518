// Herdr's config/state directories (§2.1, §5.2) and the user-global plugin registry
// `<config_dir>/plugins.json`, shared by the server and the shim.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiError } from './protocol.mjs';

export function configDir(env) {
  return join(env.XDG_CONFIG_HOME || join(env.HOME ?? '/', '.config'), 'herdr');
}

export function stateDir(env) {
  return join(env.XDG_STATE_HOME || join(env.HOME ?? '/', '.local', 'state'), 'herdr');
}

export function registryPath(env) {
  return join(configDir(env), 'plugins.json');
}

export function readRegistry(env) {
  const path = registryPath(env);
  if (!existsSync(path)) return [];
  try {
    return JSON.parse(readFileSync(path, 'utf8')).plugins ?? [];
  } catch (error) {
    throw new ApiError('plugin_registry_load_failed', error.message);
  }
}

export function writeRegistry(env, plugins) {
  const path = registryPath(env);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ version: 1, plugins }, null, 2)}\n`);
}

/** Links (or re-links) a plugin: validate, store in the registry, create its config/state dirs. */

export function platformSupported(list) {
  return list === undefined || list.includes('linux');
}
