// The service's unit for the user's service manager, as text: a systemd user unit (Linux) or a
// launchd agent (macOS) that runs `dogsled serve` with absolute paths, the installing shell's PATH
// (so the agents and jobs it starts find `claude`, `codex`, `pi`) and where its state lives, restarts
// it on failure and appends its output to serve.log. Pure: `service install` supplies the facts
// and writes the text; `service status` and doctor read the command back with unitCommand.

export const SYSTEMD_UNIT = 'dogsled.service';
export const LAUNCHD_LABEL = 'dev.dogsled';

export interface ServiceSpec {
  /** The argv that runs `dogsled serve`, every word absolute where it names a file. */
  argv: string[];
  /** The service's environment, in this order: PATH first, then where state and config live. */
  env: Array<[string, string]>;
  /** serve.log in the state directory: stdout and stderr are appended there. */
  log: string;
  home: string;
}

/** What the service runs: node and the CLI entry, or through mise when mise manages that node. */
export function serveArgv(facts: { node: string; entry: string; mise: string | null }): string[] {
  // mise's node lives under …/mise/installs/node/<version>/: a pinned path would vanish with the next
  // `mise upgrade`, so mise picks the node of the user's configuration each time the service starts.
  if (facts.mise !== null && /\/mise\/installs\/node\//.test(facts.node)) {
    return [facts.mise, 'x', '--', 'node', facts.entry, 'serve'];
  }
  return [facts.node, facts.entry, 'serve'];
}

/** The first value that no unit can carry faithfully (a control character, a relative path), or null. */
export function unitProblem(spec: ServiceSpec): string | null {
  const values: Array<[string, string]> = [
    ...spec.argv.map((word, i): [string, string] => [`word ${i + 1} of the command`, word]),
    ...spec.env.map(([key, value]): [string, string] => [key, value]),
    ['the log path', spec.log],
    ['the home directory', spec.home],
  ];
  for (const [what, value] of values) {
    if (/[\u0000-\u001f\u007f]/.test(value)) return `${what} holds a control character`;
    if (value === '') return `${what} is empty`;
  }
  for (const [what, path] of [
    ['the program', spec.argv[0] ?? ''],
    ['the log path', spec.log],
    ['the home directory', spec.home],
  ] as const) {
    if (!path.startsWith('/')) return `${what} ${JSON.stringify(path)} is not an absolute path`;
  }
  for (const [key] of spec.env) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${JSON.stringify(key)} is not a variable name`;
  }
  return null;
}

/** `%` starts a systemd specifier everywhere in a unit; `%%` is a literal one. */
function systemdLiteral(text: string): string {
  return text.replaceAll('%', '%%');
}

/** One ExecStart word: quoted, with `\`, `"`, `%` and `$` (variable expansion) escaped. */
function execWord(word: string): string {
  const escaped = systemdLiteral(word.replaceAll('\\', '\\\\').replaceAll('"', '\\"')).replaceAll(
    '$',
    '$$$$',
  );
  return `"${escaped}"`;
}

/** `Environment="KEY=VALUE"`: systemd expands no `$` here, only specifiers. */
function environmentLine([key, value]: [string, string]): string {
  return `Environment="${systemdLiteral(`${key}=${value}`.replaceAll('\\', '\\\\').replaceAll('"', '\\"'))}"`;
}

export function systemdUnit(spec: ServiceSpec): string {
  const log = systemdLiteral(spec.log);
  return [
    '# dogsled host service, written by `dogsled service install`; run it again after moving',
    '# dogsled or node, and `dogsled service uninstall` to remove it.',
    '[Unit]',
    'Description=dogsled host status and placement service',
    'After=default.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${spec.argv.map(execWord).join(' ')}`,
    ...spec.env.map(environmentLine),
    'Restart=on-failure',
    'RestartSec=5',
    // Jobs and agents the service starts run in process groups of their own and outlive a restart,
    // as they outlive a `dogsled serve` stopped by hand; serve stops its own helpers itself.
    'KillMode=process',
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

export function launchdPlist(spec: ServiceSpec): string {
  const env: Array<[string, string]> = [['HOME', spec.home], ...spec.env.filter(([key]) => key !== 'HOME')];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- dogsled host service, written by `dogsled service install`; `dogsled service uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...spec.argv.map((word) => `    <string>${xml(word)}</string>`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env.flatMap(([key, value]) => [`    <key>${xml(key)}</key>`, `    <string>${xml(value)}</string>`]),
    '  </dict>',
    '  <key>WorkingDirectory</key>',
    `  <string>${xml(spec.home)}</string>`,
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key>',
    '  <integer>5</integer>',
    // launchd would kill what shares the service's process group when it stops; jobs outlive it.
    '  <key>AbandonProcessGroup</key>',
    '  <true/>',
    '  <key>StandardOutPath</key>',
    `  <string>${xml(spec.log)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xml(spec.log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** The argv of a unit's ExecStart, read back the way systemdUnit wrote it; null when it has none. */
export function systemdCommand(text: string): string[] | null {
  const line = text.split('\n').find((l) => l.startsWith('ExecStart='));
  if (line === undefined) return null;
  const words: string[] = [];
  const rest = line.slice('ExecStart='.length);
  const pattern = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of rest.matchAll(pattern)) {
    const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? '');
    words.push(raw.replaceAll('%%', '%').replaceAll('$$', '$'));
  }
  return words;
}

/** The ProgramArguments of a launchd agent, read back; null when it has none. */
export function launchdCommand(text: string): string[] | null {
  const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)?.[1];
  if (array === undefined) return null;
  return [...array.matchAll(/<string>([\s\S]*?)<\/string>/g)].map((m) =>
    (m[1] ?? '')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&quot;', '"')
      .replaceAll('&apos;', "'")
      .replaceAll('&amp;', '&'),
  );
}
