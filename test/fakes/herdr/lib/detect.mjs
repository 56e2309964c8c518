// Agent kinds and process-based agent detection, ported from Herdr's detect/mod.rs: a foreground
// process is an agent when its argv[0] (or comm) names one, when it is a runtime or shell (`node`,
// `python3`, `sh`...) whose script argument names one (`node /x/bin/pi`), or when it carries
// HERDR_AGENT=<kind>. Names are matched case-insensitively, with aliases and `.js`-style suffixes.
import { childrenOf, readArgv, readEnvVar, readStat } from './procfs.mjs';

export const AGENT_KINDS = [
  'pi',
  'claude',
  'codex',
  'gemini',
  'cursor',
  'devin',
  'agy',
  'cline',
  'omp',
  'mastracode',
  'opencode',
  'copilot',
  'kimi',
  'kiro',
  'droid',
  'amp',
  'grok',
  'hermes',
  'kilo',
  'qodercli',
  'maki',
];

const ALIASES = {
  'claude-code': 'claude',
  'cursor-agent': 'cursor',
  'devin-cli': 'devin',
  'devin cli': 'devin',
  antigravity: 'agy',
  'antigravity-cli': 'agy',
  'mastra-code': 'mastracode',
  'mastra code': 'mastracode',
  opencode2: 'opencode',
  'open-code': 'opencode',
  'github-copilot': 'copilot',
  ghcs: 'copilot',
  'kimi-code': 'kimi',
  'kimi code': 'kimi',
  'kiro-cli': 'kiro',
  'amp-local': 'amp',
  'grok-build': 'grok',
  'hermes-agent': 'hermes',
  'kilo-code': 'kilo',
  'kilo code': 'kilo',
  qoderclicn: 'qodercli',
  qoder: 'qodercli',
  qodercn: 'qodercli',
};

/** The executable `agent.start` types for a kind. */
const EXECUTABLES = { cursor: 'cursor-agent', kiro: 'kiro-cli' };

export const SHELLS = [
  'sh',
  'bash',
  'dash',
  'zsh',
  'fish',
  'ksh',
  'mksh',
  'csh',
  'tcsh',
  'elvish',
  'xonsh',
  'nu',
  'pwsh',
  'powershell',
  'cmd',
];

function normalise(name) {
  const value = name.trim().toLowerCase();
  for (const suffix of ['.exe', '.cmd', '.bat', '.ps1', '.js']) {
    if (value.endsWith(suffix)) return value.slice(0, -suffix.length);
  }
  return value;
}

/** Canonical kind for a label or alias (`claude-code` → `claude`), else undefined. */
export function parseAgentKind(label) {
  const name = normalise(label);
  if (AGENT_KINDS.includes(name)) return name;
  return ALIASES[name];
}

export function executableFor(kind) {
  return EXECUTABLES[kind] ?? kind;
}

function basename(path) {
  const parts = path.split(/[/\\]/).filter(Boolean);
  return parts.at(-1) ?? path;
}

function kindFromPathToken(token) {
  const trimmed = token.replace(/^["']|["']$/g, '');
  if (trimmed === '' || trimmed.startsWith('-')) return undefined;
  return parseAgentKind(basename(trimmed));
}

const VALUE_FLAGS = ['-r', '--require', '--loader', '--import', '--experimental-loader', '--inspect-port'];
const RUNTIMES = ['node', 'bun', 'sh', 'bash', 'zsh', 'fish', 'dash'];

function isRuntime(name) {
  const base = normalise(basename(name));
  return RUNTIMES.includes(base) || /^python(\d+(\.\d+)*)?$/.test(base);
}

/** `node [flags] /path/pi args` → the script's kind; eval flags (`-e`, `-c`) name no script. */
function scriptKind(argv) {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return argv[i + 1] === undefined ? undefined : kindFromPathToken(argv[i + 1]);
    if (['-e', '--eval', '-p', '--print', '-c', '-m'].includes(arg)) return undefined;
    if (arg.startsWith('-')) {
      if (VALUE_FLAGS.includes(arg)) i += 1;
      continue;
    }
    return kindFromPathToken(arg);
  }
  return undefined;
}

/** The agent kind one process stands for, if any. */
export function processKind(pid) {
  const stat = readStat(pid);
  if (!stat || stat.state === 'Z') return undefined;
  const argv = readArgv(pid) ?? [];
  const effective = argv[0] ?? stat.comm;
  const declared = readEnvVar(pid, 'HERDR_AGENT');
  if (declared && parseAgentKind(declared)) return parseAgentKind(declared);
  if (isRuntime(effective)) return scriptKind(argv);
  return kindFromPathToken(effective) ?? parseAgentKind(stat.comm);
}

/** The agent hosting a foreground job: its leader first, then descendants (wrappers like npx). */
export function jobKind(leaderPid) {
  const queue = [leaderPid];
  for (let visited = 0; queue.length > 0 && visited < 16; visited++) {
    const pid = queue.shift();
    const kind = processKind(pid);
    if (kind) return kind;
    queue.push(...childrenOf(pid));
  }
  return undefined;
}

/** POSIX shell quoting of one word, as Herdr types a launch. */
export function shellQuote(word) {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
