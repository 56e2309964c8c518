// Display text for transcript activity: escape sequences stripped, whitespace folded to one line,
// bounded length. Tool calls become "Name: what it acts on" from the argument that says most.

import { clipPoints, cutAt, squeezedLine } from '../../core/text/clean.js';
import { isRecord } from './lines.js';

export const ACTIVITY_TEXT_MAX = 200;
/** Only this much of a message is cleaned: the shown text is a prefix, and messages can be huge. */
const SCAN_MAX = 4_000;

/** One display line of at most `max` code points (clipPoints: an emoji counts one), `…` at a cut. */
export function displayLine(text: string, max = ACTIVITY_TEXT_MAX): string {
  return clipPoints(squeezedLine(cutAt(text, SCAN_MAX), SCAN_MAX), max);
}

/** Argument keys in the order that best names what a tool call acts on. */
const TELLING_KEYS = [
  'command',
  'cmd',
  'file_path',
  'path',
  'notebook_path',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
];

/** "Bash: npm test", or the bare name when the arguments say nothing short. */
export function toolText(name: string, args: unknown): string {
  const detail = argumentSummary(args);
  return displayLine(detail ? `${name}: ${detail}` : name);
}

export function argumentSummary(args: unknown): string {
  if (typeof args === 'string') return args;
  if (Array.isArray(args)) return commandLine(args);
  if (!isRecord(args)) return '';
  for (const key of TELLING_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (Array.isArray(value) && value.length > 0) return commandLine(value);
  }
  for (const value of Object.values(args)) {
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return '';
}

/** ["bash", "-lc", "npm test"] reads as "npm test"; other argv arrays are joined with spaces. */
function commandLine(argv: unknown[]): string {
  const words = argv.filter((word): word is string => typeof word === 'string');
  const [shell, flag, script] = words;
  if (words.length === 3 && shell && /(^|\/)(ba|z|da)?sh$/.test(shell) && flag && /^-l?c$/.test(flag)) {
    return script ?? '';
  }
  return words.join(' ');
}
