// Launch arguments of the three harness CLIs, parsed the way the real ones read them: known flags
// with their values, everything unknown recorded (never refused), positionals as the prompt.
// Claude Code: claude [flags] [prompt]; Codex: codex [exec] [resume ID] [flags] [prompt];
// Pi: pi [flags] [@file ...] [message ...] (pi-mono packages/coding-agent/src/cli/args.ts).

const CLAUDE_VALUE = new Set([
  '--model',
  '--append-system-prompt',
  '--append-system-prompt-file',
  '--system-prompt',
  '--system-prompt-file',
  '--session-id',
  '--settings',
  '--setting-sources',
  '--plugin-dir',
  '--permission-mode',
  '--allowedTools',
  '--allowed-tools',
  '--disallowedTools',
  '--disallowed-tools',
  '--mcp-config',
  '--output-format',
  '--input-format',
  '--max-turns',
  '--fallback-model',
  '--agents',
  '--add-dir',
]);

const CODEX_VALUE = new Set([
  '-m',
  '--model',
  '-c',
  '--config',
  '-C',
  '--cd',
  '-p',
  '--profile',
  '-s',
  '--sandbox',
  '-a',
  '--ask-for-approval',
  '-i',
  '--image',
  '--add-dir',
  '--enable',
  '--disable',
  '--output-last-message',
  '-o',
]);

const PI_VALUE = new Set([
  '--model',
  '--provider',
  '--thinking',
  '--append-system-prompt',
  '--system-prompt',
  '--session',
  '--session-dir',
  '--mode',
  '--api-key',
  '--models',
  '--tools',
  '--extension',
  '-e',
  '--skill',
  '--prompt-template',
  '--theme',
  '--export',
  '--temperature',
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * @param {'claude'|'codex'|'pi'} kind
 * @param {string[]} argv
 */
export function parseLaunch(kind, argv) {
  /** @type {Record<string, string[]>} */
  const values = {};
  /** @type {string[]} */
  const flags = [];
  /** @type {string[]} */
  const positionals = [];
  /** @type {string[]} */
  const unknown = [];
  /** @type {string[]} */
  const fileArgs = [];
  let subcommand = null;
  let print = false;
  let resumeId = null;
  const valued = kind === 'claude' ? CLAUDE_VALUE : kind === 'codex' ? CODEX_VALUE : PI_VALUE;
  /** @type {{flag: string, value: string}[]} */
  const systemPromptArgs = [];
  const add = (flag, value) => {
    values[flag] ??= [];
    values[flag].push(value);
    if (flag === '--append-system-prompt' || flag === '--append-system-prompt-file') {
      systemPromptArgs.push({ flag, value });
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const codexVerb = kind === 'codex' && positionals.length === 0;
    if (codexVerb && subcommand === null && (arg === 'exec' || arg === 'e')) {
      subcommand = 'exec';
      print = true;
      continue;
    }
    // `codex resume ID` and `codex exec resume ID` continue a recorded session.
    if (codexVerb && subcommand !== 'resume' && arg === 'resume') {
      subcommand = 'resume';
      if (argv[i + 1] && !argv[i + 1].startsWith('-')) resumeId = argv[++i];
      continue;
    }
    if (kind === 'pi' && arg.startsWith('@')) {
      fileArgs.push(arg.slice(1));
      continue;
    }
    if (kind === 'claude' && (arg === '--resume' || arg === '-r')) {
      // --resume takes an optional session id; without one the real CLI opens a picker.
      if (argv[i + 1] && UUID.test(argv[i + 1])) resumeId = argv[++i];
      flags.push('--resume');
      continue;
    }
    if (arg.startsWith('--') && arg.includes('=')) {
      const at = arg.indexOf('=');
      const flag = arg.slice(0, at);
      add(flag, arg.slice(at + 1));
      if (!valued.has(flag)) unknown.push(arg);
      continue;
    }
    if (valued.has(arg) && i + 1 < argv.length) {
      add(arg, argv[++i]);
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      flags.push(arg);
      if (!KNOWN_BOOLEAN[kind].has(arg)) unknown.push(arg);
      continue;
    }
    positionals.push(arg);
  }

  const last = (...names) => {
    for (const name of names) {
      const list = values[name];
      if (list?.length) return list[list.length - 1];
    }
    return null;
  };
  const all = (...names) => names.flatMap((name) => values[name] ?? []);
  const has = (...names) => names.some((name) => flags.includes(name));

  const launch = {
    kind,
    subcommand,
    values,
    flags,
    unknown,
    positionals,
    fileArgs,
    /** The prompt the CLI starts its first turn with (Pi: the first message). */
    prompt: positionals.length > 0 ? positionals[kind === 'pi' ? 0 : positionals.length - 1] : null,
    /** Pi processes further messages as later prompts, in order. */
    laterPrompts: kind === 'pi' ? positionals.slice(1) : [],
    model: null,
    provider: null,
    thinking: null,
    sessionId: null,
    sessionFile: null,
    sessionDir: null,
    resumeId,
    continueLast: false,
    noSession: false,
    print: false,
    cd: null,
    settings: all('--settings'),
    pluginDirs: all('--plugin-dir'),
    appendSystemPrompts: systemPromptArgs.map((entry) => entry.value),
    /** In command-line order, with the flag each came from (Claude: text vs file). */
    systemPromptArgs,
    configOverrides: all('-c', '--config'),
  };

  if (kind === 'claude') {
    launch.model = last('--model');
    launch.sessionId = last('--session-id');
    launch.continueLast = has('--continue', '-c');
    launch.print = has('-p', '--print');
  } else if (kind === 'codex') {
    launch.model = last('-m', '--model') ?? configModel(launch.configOverrides);
    launch.cd = last('-C', '--cd');
    launch.print = print;
  } else {
    const model = last('--model');
    launch.provider = last('--provider');
    if (model?.includes('/') && !launch.provider) {
      launch.provider = model.slice(0, model.indexOf('/'));
      launch.model = model.slice(model.indexOf('/') + 1);
    } else {
      launch.model = model;
    }
    launch.thinking = last('--thinking');
    launch.sessionFile = last('--session');
    launch.sessionDir = last('--session-dir');
    launch.continueLast = has('--continue', '-c');
    launch.noSession = has('--no-session');
    launch.print = has('-p', '--print');
  }
  return launch;
}

/** `-c model="gpt-5"` (TOML value) sets Codex's model like `-m`. */
function configModel(overrides) {
  for (let i = overrides.length - 1; i >= 0; i--) {
    const match = /^model\s*=\s*(.+)$/.exec(overrides[i]);
    if (match) return match[1].trim().replace(/^["']|["']$/g, '');
  }
  return null;
}

const KNOWN_BOOLEAN = {
  claude: new Set([
    '-p',
    '--print',
    '-c',
    '--continue',
    '--dangerously-skip-permissions',
    '--allow-dangerously-skip-permissions',
    '--verbose',
    '-d',
    '--debug',
    '--ide',
    '--fork-session',
    '--strict-mcp-config',
    '--include-partial-messages',
  ]),
  codex: new Set([
    '--full-auto',
    '--dangerously-bypass-approvals-and-sandbox',
    '--yolo',
    '--search',
    '--oss',
    '--skip-git-repo-check',
    '--json',
    '--no-alt-screen',
  ]),
  pi: new Set([
    '-p',
    '--print',
    '-c',
    '--continue',
    '-r',
    '--resume',
    '--no-session',
    '--no-tools',
    '--no-extensions',
    '-ne',
    '--no-skills',
    '-ns',
    '--no-prompt-templates',
    '-np',
    '--no-themes',
    '--verbose',
  ]),
};
