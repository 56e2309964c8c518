// Doctor's install section: from what was read of this host (the service unit and its manager, the
// service lock, the `dogsled` on PATH, each harness's record of the dogsled plugin, Herdr's plugin
// list, the warm supervisor), one finding per check, each naming the command that fixes it. Pure.

import type { InstallLines } from './install-lines.js';

export type InstallCheck = 'service' | 'path' | 'claude' | 'codex' | 'codex-hooks' | 'herdr' | 'warm';

export interface InstallFinding {
  check: InstallCheck;
  /** ok: nothing to do; fix: run `fix`; skip: not applicable here (no Claude Code, no Herdr…). */
  state: 'ok' | 'fix' | 'skip';
  detail: string;
  fix: string | null;
}

export interface PluginRecord {
  id: string;
  version: string | null;
  enabled: boolean;
}

export interface InstallFacts {
  version: string;
  lines: InstallLines;
  /** The unit and what its manager says; `unsupported` on a platform with neither manager. */
  service:
    | {
        manager: string;
        installed: boolean;
        active: boolean | null;
        pid: number | null;
        problem: string | null;
        /** The real path of the dogsled entry the unit runs, when it names one. */
        entry: string | null;
      }
    | { unsupported: string };
  /** Whether a `serve` holds this host's service lock, and its pid. */
  lock: { up: boolean; pid: number | null };
  /** The real path of the `dogsled` the PATH finds, null when there is none. */
  onPath: string | null;
  /**
   * Where the running dogsled came from: an npm prefix (its bin directory holds `dogsled`), a
   * checkout (built in place), or neither; what to do when PATH has no dogsled depends on it.
   */
  origin: { kind: 'prefix'; bin: string } | { kind: 'checkout'; dir: string } | { kind: 'unknown' };
  claude: { found: boolean; plugin: PluginRecord | null; error: string | null };
  codex: {
    found: boolean;
    plugin: PluginRecord | null;
    /** Hooks the plugin registers and how many of them the user has trusted in /hooks. */
    hooks: { total: number; trusted: number } | null;
    error: string | null;
  };
  /** Herdr's record of the plugin; `why` when no Herdr answered. */
  herdr: { running: boolean; why: string; plugin: PluginRecord | null; error: string | null };
  /** The warm supervisor answered; null when no service runs to keep one. */
  warm: boolean | null;
}

export function installFindings(facts: InstallFacts): InstallFinding[] {
  return [
    serviceFinding(facts),
    pathFinding(facts),
    claudeFinding(facts),
    ...codexFindings(facts),
    herdrFinding(facts),
    warmFinding(facts),
  ];
}

const ok = (check: InstallCheck, detail: string): InstallFinding => ({
  check,
  state: 'ok',
  detail,
  fix: null,
});
const skip = (check: InstallCheck, detail: string): InstallFinding => ({
  check,
  state: 'skip',
  detail,
  fix: null,
});
const fix = (check: InstallCheck, detail: string, command: string): InstallFinding => ({
  check,
  state: 'fix',
  detail,
  fix: command,
});

function serviceFinding(facts: InstallFacts): InstallFinding {
  const { service, lock, lines } = facts;
  const held = lock.up ? `serve runs (pid ${lock.pid ?? '?'})` : 'no serve runs';
  if ('unsupported' in service) return skip('service', `${held}; ${service.unsupported}`);
  if (!service.installed) {
    return fix(
      'service',
      lock.up
        ? `${held}, but not under ${service.manager}: it ends with the shell that started it`
        : `no serve runs, and no ${service.manager} unit starts one`,
      lines.service,
    );
  }
  if (service.problem !== null) {
    return fix(
      'service',
      `${service.manager} could not be asked about the unit: ${service.problem}`,
      lines.service,
    );
  }
  if (service.active !== true)
    return fix('service', `the ${service.manager} unit is installed but not running`, lines.service);
  if (!lock.up) {
    return fix(
      'service',
      `the ${service.manager} unit runs, but no serve holds the service lock (see serve.log)`,
      lines.service,
    );
  }
  return ok('service', `serve runs under ${service.manager} (pid ${lock.pid ?? service.pid ?? '?'})`);
}

function pathFinding(facts: InstallFacts): InstallFinding {
  const { service, onPath, lines } = facts;
  if (onPath === null) {
    const { origin } = facts;
    const command =
      origin.kind === 'prefix'
        ? `export PATH="${origin.bin}:$PATH" (and in your shell's profile)`
        : origin.kind === 'checkout'
          ? `cd ${origin.dir} && npm link`
          : lines.npm;
    return fix('path', 'no dogsled on PATH: hooks, the MCP server and peers run `dogsled`', command);
  }
  if ('unsupported' in service || !service.installed || service.entry === null) {
    return ok('path', `dogsled on PATH is ${onPath}`);
  }
  if (service.entry !== onPath) {
    return fix('path', `the service runs ${service.entry}, but dogsled on PATH is ${onPath}`, lines.service);
  }
  return ok('path', `the service runs the dogsled on PATH (${onPath})`);
}

/** Plugin found, enabled, and of this dogsled's version; `line` installs (or updates) it. */
function pluginFinding(
  check: InstallCheck,
  harness: string,
  plugin: PluginRecord | null,
  version: string,
  line: string,
  enable: string,
): InstallFinding {
  if (plugin === null) return fix(check, `the dogsled plugin is not installed in ${harness}`, line);
  if (!plugin.enabled)
    return fix(check, `the dogsled plugin (${plugin.id}) is disabled in ${harness}`, enable);
  if (plugin.version !== null && plugin.version !== version) {
    return fix(
      check,
      `${harness} has the dogsled plugin ${plugin.version}, this dogsled is ${version}`,
      line,
    );
  }
  return ok(check, `${plugin.id} ${plugin.version ?? ''} installed in ${harness}`.replace('  ', ' '));
}

function claudeFinding(facts: InstallFacts): InstallFinding {
  const { claude } = facts;
  if (claude.error !== null)
    return fix('claude', `Claude Code's plugin records: ${claude.error}`, facts.lines.claude);
  if (!claude.found && claude.plugin === null) return skip('claude', 'claude is not on PATH');
  const id = claude.plugin?.id ?? 'dogsled@dogsled';
  return pluginFinding(
    'claude',
    'Claude Code',
    claude.plugin,
    facts.version,
    facts.lines.claude,
    `claude plugin enable ${id}`,
  );
}

function codexFindings(facts: InstallFacts): InstallFinding[] {
  const { codex } = facts;
  if (codex.error !== null) return [fix('codex', `Codex's config: ${codex.error}`, facts.lines.codex)];
  if (!codex.found && codex.plugin === null) return [skip('codex', 'codex is not on PATH')];
  const id = codex.plugin?.id ?? 'dogsled@dogsled';
  const plugin = pluginFinding(
    'codex',
    'Codex',
    codex.plugin,
    facts.version,
    facts.lines.codex,
    `codex plugin add ${id}`,
  );
  if (codex.plugin === null || codex.hooks === null) return [plugin];
  const { total, trusted } = codex.hooks;
  const hooks =
    trusted >= total
      ? ok('codex-hooks', `all ${total} dogsled hooks trusted in Codex`)
      : fix(
          'codex-hooks',
          `${total - trusted} of ${total} dogsled hooks not trusted: Codex skips them without a word`,
          'codex, then /hooks: review and trust the dogsled hooks',
        );
  return [plugin, hooks];
}

function herdrFinding(facts: InstallFacts): InstallFinding {
  const { herdr } = facts;
  if (!herdr.running) return skip('herdr', `no Herdr to ask (${herdr.why})`);
  if (herdr.error !== null) return fix('herdr', `Herdr's plugin list: ${herdr.error}`, facts.lines.herdr);
  return pluginFinding('herdr', 'Herdr', herdr.plugin, facts.version, facts.lines.herdr, facts.lines.herdr);
}

function warmFinding(facts: InstallFacts): InstallFinding {
  if (facts.warm === null) return skip('warm', 'no serve runs to keep a job supervisor warm');
  if (facts.warm) return ok('warm', 'a warm job supervisor answers on supervisor.sock');
  return fix(
    'warm',
    'the service keeps no warm job supervisor (supervisor.sock does not answer): every headless run starts its own',
    facts.lines.service,
  );
}

/**
 * The keys Codex records a plugin's hooks under in `[hooks.state]` (`<plugin>:<hooks file>:<event in
 * snake case>:<group>:<index>`, as Codex 0.171 writes them): one per command in the hooks file.
 */
export function codexHookKeys(pluginId: string, hooksPath: string, hooks: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const snake = event.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
    groups.forEach((group, g) => {
      const list = (group as { hooks?: unknown }).hooks;
      if (!Array.isArray(list)) return;
      list.forEach((_, h) => {
        keys.push(`${pluginId}:${hooksPath}:${snake}:${g}:${h}`);
      });
    });
  }
  return keys;
}
