// Types of the fake Herdr's manifest validator, for TypeScript tests that validate a manifest.
export interface InstalledPluginInfo {
  plugin_id: string;
  name: string;
  version: string;
  min_herdr_version: string;
  manifest_path: string;
  plugin_root: string;
  enabled: boolean;
  platforms?: string[];
  warnings?: string[];
  actions?: Array<Record<string, unknown>>;
  panes?: Array<Record<string, unknown>>;
}

export function loadManifest(
  path: string,
  options: { herdrVersion: string; enabled?: boolean },
): InstalledPluginInfo;

export function linkPlugin(
  env: NodeJS.ProcessEnv,
  path: string,
  options: { herdrVersion: string; enabled?: boolean },
): InstalledPluginInfo;
