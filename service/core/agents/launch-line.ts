// The launch line of a child agent (spec, "Agents and profiles"): the arguments of `herdr agent start
// <name> --kind K --pane P -- <args>` and the one terminal line Herdr types for them. No task text is
// ever on it: the task and the contract travel as files, and the line is refused over its byte budget
// or with a control character in any word, before a pane exists. Pure: paths come in, data goes out.

import { shellWord } from '../common/shell-quote.js';
import { quoted, quotedVisible } from '../text/clean.js';

export const AGENT_KINDS = ['pi', 'claude', 'codex'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/**
 * The kind a caller asked for: `--kind`, else Pi when it named a `--profile` (profiles are Pi's
 * only, so `agent --profile general` needs no `--kind`); null when neither says.
 */
export function requestedKind(kind: string | undefined, profile: string | undefined): string | null {
  if (kind !== undefined) return kind;
  return profile === undefined ? null : 'pi';
}

/**
 * Herdr types the launch as one line; a shell in canonical mode reads at most 1024 bytes on macOS
 * (MAX_CANON). The spec keeps 64 bytes of that for Herdr's own quoting, which may differ from ours.
 */
export const LAUNCH_LINE_MAX_BYTES = 960;

/** Herdr's agent-name rule (CONTRACT §1.2); checked here so the refusal names the flag. */
const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** What Herdr calls a control character in an argument: C0, DEL and C1. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The profile facts the line needs (service/agents/profiles.ts reads them). */
export interface LaunchProfile {
  name: string;
  model: string | null;
  thinking: string | null;
  /** Absolute prompt files, in order: each becomes its own --append-system-prompt. */
  prompts: readonly string[];
  piArgs: readonly string[];
}

export interface LaunchLineInput {
  kind: string;
  name: string;
  /** The exact canonical pane id the agent starts in. */
  pane: string;
  /** Absolute `launches/<id>.task.md` and `launches/<id>.contract.md` on the host that runs the child. */
  taskFile: string;
  contractFile: string;
  /** The state directory those files live in, to say when it is what makes the line long. */
  stateDir: string;
  profile?: LaunchProfile | null;
}

export interface LaunchLine {
  kind: AgentKind;
  /** What follows `--` in `herdr agent start`: the harness's own arguments. */
  args: string[];
  /** The whole `herdr` argument list: `agent start <name> --kind K --pane P -- <args>`. */
  herdrArgs: string[];
  /** The line Herdr types: the executable and the args, each POSIX-quoted, joined by spaces. */
  typed: string;
  /** Its length in bytes (UTF-8). */
  bytes: number;
}

export type LaunchLineResult = { ok: true; line: LaunchLine } | { ok: false; error: string };

/** Codex has no system-prompt file, so this fixed contract rides on the line; it must stay short. */
export const CODEX_CONTRACT =
  'You are a dogsled child agent. Work in this checkout and commit your work on its branch. ' +
  'In your final working turn, after committing, run `dogsled done`. ' +
  'Messages from your owner arrive between turns.';

/** Where each part of the line came from, to name the part that makes it too long. */
type Source = 'fixed' | 'profile';

interface Word {
  text: string;
  source: Source;
  /** Names the word in a control-character refusal; never holds the (untrusted) value itself. */
  what: string;
}

export function launchLine(input: LaunchLineInput): LaunchLineResult {
  const kind = AGENT_KINDS.find((known) => known === input.kind);
  if (kind === undefined) {
    return { ok: false, error: `unknown kind ${quoted(input.kind)}: use pi, claude or codex` };
  }
  if (!AGENT_NAME.test(input.name)) {
    return {
      ok: false,
      error: `name ${quoted(input.name)} is not a Herdr agent name: a lowercase letter, then at most 31 lowercase letters, digits, - or _`,
    };
  }
  const profile = input.profile ?? null;
  if (profile !== null && kind !== 'pi') {
    return { ok: false, error: `--profile is for Pi children only, not ${kind}` };
  }
  if (CONTROL.test(input.stateDir)) {
    return {
      ok: false,
      error: `the state path ${quotedVisible(input.stateDir)} contains a control character, which Herdr cannot type; set DOGSLED_STATE to a directory without one`,
    };
  }
  const words = agentWords(kind, input, profile);
  const bad = words.find((word) => CONTROL.test(word.text));
  if (bad !== undefined) {
    return {
      ok: false,
      error: `${bad.what} contains a control character, which Herdr cannot type: ${quotedVisible(bad.text)}`,
    };
  }
  const args = words.map((word) => word.text);
  const typed = [kind, ...args].map(shellWord).join(' ');
  const bytes = byteLength(typed);
  if (bytes > LAUNCH_LINE_MAX_BYTES) {
    return {
      ok: false,
      error: `the launch line would be ${bytes} bytes, over the ${LAUNCH_LINE_MAX_BYTES}-byte limit: ${longestPart(words, input, profile)}`,
    };
  }
  const herdrArgs = ['agent', 'start', input.name, '--kind', kind, '--pane', input.pane, '--', ...args];
  return { ok: true, line: { kind, args, herdrArgs, typed, bytes } };
}

/**
 * Pi: the contract and each profile prompt as --append-system-prompt files, the task as `@file`.
 * Claude: the contract through --append-system-prompt as a pointer to its file (Claude takes text
 * there), the task as a one-line pointer prompt. Codex: the fixed contract and the pointer inline.
 */
function agentWords(kind: AgentKind, input: LaunchLineInput, profile: LaunchProfile | null): Word[] {
  const fixed = (text: string, what: string): Word => ({ text, source: 'fixed', what });
  const pointer = `You are ${input.name}. Your task is in ${input.taskFile}: read it and do it.`;
  if (kind === 'claude') {
    return [
      fixed('--append-system-prompt', 'the contract flag'),
      fixed(
        `You are a dogsled child agent. Your contract is in ${input.contractFile}: read it first and follow it.`,
        'the contract path',
      ),
      fixed(pointer, 'the task path'),
    ];
  }
  if (kind === 'codex') {
    return [fixed(`${CODEX_CONTRACT} ${pointer}`, 'the task path')];
  }
  const words: Word[] = [];
  if (profile !== null) {
    const from = (text: string, what: string): Word => ({
      text,
      source: 'profile',
      what: `profile ${profile.name}'s ${what}`,
    });
    if (profile.model !== null) words.push(from('--model', 'model'), from(profile.model, 'model'));
    if (profile.thinking !== null)
      words.push(from('--thinking', 'thinking'), from(profile.thinking, 'thinking'));
    words.push(
      fixed('--append-system-prompt', 'the contract flag'),
      fixed(input.contractFile, 'the contract path'),
    );
    profile.prompts.forEach((prompt, index) => {
      words.push(from('--append-system-prompt', 'prompt'), from(prompt, `prompt ${index + 1}`));
    });
    profile.piArgs.forEach((arg, index) => {
      words.push(from(arg, `pi_args[${index}]`));
    });
  } else {
    words.push(
      fixed('--append-system-prompt', 'the contract flag'),
      fixed(input.contractFile, 'the contract path'),
    );
  }
  words.push(fixed(`@${input.taskFile}`, 'the task path'));
  return words;
}

/** The part of a too-long line a user can shorten: the state path, the profile or the name. */
function longestPart(words: readonly Word[], input: LaunchLineInput, profile: LaunchProfile | null): string {
  const parts: Array<{ bytes: number; say: string }> = [];
  if (input.stateDir !== '') {
    const uses = words.reduce((sum, word) => sum + occurrences(word.text, input.stateDir), 0);
    if (uses > 0) {
      parts.push({
        bytes: uses * byteLength(input.stateDir),
        say: `the state path ${quotedVisible(input.stateDir)} takes ${uses * byteLength(input.stateDir)} bytes (${uses} uses); set DOGSLED_STATE to a shorter directory`,
      });
    }
  }
  if (profile !== null) {
    const bytes = words
      .filter((word) => word.source === 'profile')
      .reduce((sum, word) => sum + byteLength(shellWord(word.text)) + 1, 0);
    parts.push({
      bytes,
      say: `profile ${quotedVisible(profile.name)} takes ${bytes} bytes (its model, thinking, prompt paths and pi_args)`,
    });
  }
  const nameUses = words.reduce((sum, word) => sum + occurrences(word.text, input.name), 0);
  parts.push({
    bytes: nameUses * byteLength(input.name),
    say: `the name ${input.name} takes ${nameUses * byteLength(input.name)} bytes`,
  });
  parts.sort((a, b) => b.bytes - a.bytes);
  return parts[0]?.say ?? 'the line is too long';
}

function occurrences(text: string, part: string): number {
  if (part === '') return 0;
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}
