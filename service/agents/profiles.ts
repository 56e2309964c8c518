// Pi profiles (spec, "Agents and profiles"): ~/.config/dogsled/profiles/NAME/profile.json on the host
// that runs the child. A directory without profile.json (such as _shared) is not a profile; unknown
// keys are ignored so Shepherdr profiles load as they are. A profile that cannot be used as written
// is listed as broken with one reason, and loading it for a launch is an error with that reason.

import { access, constants, readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import * as z from 'zod/mini';
import type { LaunchProfile } from '../core/agents/launch-line.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { squeezedLine } from '../core/text/clean.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import '../state/engine/zod-messages.js';

export const PROFILE_FILE = 'profile.json';
/** A profile is a few lines of JSON; a bigger file is not one (and is not read whole). */
const PROFILE_MAX_BYTES = 64 * 1024;
/** Pi's --thinking levels. */
export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type Thinking = (typeof THINKING_LEVELS)[number];
export const ROLES = ['reader', 'writer'] as const;
export type Role = (typeof ROLES)[number];

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const text = lazySchema(() => z.string().check(z.minLength(1)));

/** Each key may also be null, which means the same as leaving it out. */
const ProfileFileSchema = lazySchema(() =>
  z.looseObject({
    description: z.nullish(z.string()),
    model: z.nullish(text),
    thinking: z.nullish(z.enum(THINKING_LEVELS)),
    prompt: z.nullish(z.union([text, z.array(text)])),
    role: z.nullish(z.enum(ROLES)),
    pi_args: z.nullish(z.array(z.string())),
  }),
);

const RULES: Record<string, string> = {
  description: 'must be a string',
  model: 'must be a non-empty string',
  thinking: `must be one of ${THINKING_LEVELS.join(', ')}`,
  prompt: 'must be a file name or a list of file names, relative to the profile directory',
  role: 'must be reader or writer',
  pi_args: 'must be a list of strings',
};

export interface Profile {
  name: string;
  /** The profile's directory. */
  dir: string;
  description: string | null;
  model: string | null;
  thinking: Thinking | null;
  /** Absolute prompt files, in order. */
  prompts: string[];
  /** Null: the launch decides (a child with --branch is a writer, any other a reader). */
  role: Role | null;
  pi_args: string[];
}

export type ProfileEntry =
  | { name: string; dir: string; profile: Profile; broken: null }
  | { name: string; dir: string; profile: null; broken: string };

/** `~/.config/dogsled/profiles` under `home`. */
export function profilesDir(home: string): string {
  return join(home, '.config', 'dogsled', 'profiles');
}

/** Every profile under `root`, by name; a missing root is no profiles. */
export async function listProfiles(root: string): Promise<ProfileEntry[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR') throw new DogsledError(`profiles: ${root} is not a directory`);
    throw new DogsledError(`profiles: cannot read ${root} (${code ?? messageOf(error)})`);
  }
  const entries: ProfileEntry[] = [];
  for (const name of names.sort()) {
    const dir = join(root, name);
    const kind = await kindOf(dir);
    if (kind !== 'dir') continue;
    const file = join(dir, PROFILE_FILE);
    if ((await kindOf(file)) === 'missing') continue;
    entries.push(await readProfile(root, name));
  }
  return entries;
}

/** The profile a launch names. Unknown and broken profiles are one-line errors. */
export async function loadProfile(root: string, name: string): Promise<Profile> {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || CONTROL.test(name)) {
    throw new DogsledError(`profile ${JSON.stringify(squeezedLine(name))}: not a profile name`);
  }
  const dir = join(root, name);
  if ((await kindOf(dir)) !== 'dir' || (await kindOf(join(dir, PROFILE_FILE))) === 'missing') {
    const known = (await listProfiles(root).catch(() => [])).map((entry) => entry.name);
    const hint = known.length > 0 ? ` (profiles: ${known.join(', ')})` : '';
    throw new DogsledError(`unknown profile ${name}: no ${join(dir, PROFILE_FILE)}${hint}`);
  }
  const entry = await readProfile(root, name);
  if (entry.broken !== null) throw new DogsledError(`profile ${name} is broken: ${entry.broken}`);
  return entry.profile;
}

/** What the launch line takes from a profile. */
export function launchProfile(profile: Profile): LaunchProfile {
  return {
    name: profile.name,
    model: profile.model,
    thinking: profile.thinking,
    prompts: profile.prompts,
    piArgs: profile.pi_args,
  };
}

async function readProfile(root: string, name: string): Promise<ProfileEntry> {
  const dir = join(root, name);
  const broken = (reason: string): ProfileEntry => ({ name, dir, profile: null, broken: reason });
  if (CONTROL.test(name)) return broken('its directory name contains a control character');
  const file = join(dir, PROFILE_FILE);
  const found = await fileProblem(file, PROFILE_MAX_BYTES);
  if (found !== null) return broken(`${PROFILE_FILE} ${found}`);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError)
      return broken(`${PROFILE_FILE} is not JSON (${squeezedLine(error.message)})`);
    return broken(`cannot read ${PROFILE_FILE} (${codeOf(error)})`);
  }
  const parsed = ProfileFileSchema.safeParse(json);
  if (!parsed.success) return broken(describeIssue(parsed.error));
  const data = parsed.data;
  const piArgs = data.pi_args ?? [];
  for (const [key, value] of [
    ['model', data.model],
    ['thinking', data.thinking],
    ...piArgs.map((arg, index) => [`pi_args[${index}]`, arg] as const),
  ] as const) {
    if (value && CONTROL.test(value)) return broken(`${key} contains a control character`);
  }
  const listed = data.prompt === undefined || data.prompt === null ? [] : [data.prompt].flat();
  const prompts: string[] = [];
  for (const prompt of listed) {
    const problem = await promptProblem(root, dir, prompt);
    if (problem !== null) return broken(problem);
    prompts.push(resolve(dir, prompt));
  }
  return {
    name,
    dir,
    broken: null,
    profile: {
      name,
      dir,
      description: data.description ?? null,
      model: data.model ?? null,
      thinking: data.thinking ?? null,
      prompts,
      role: data.role ?? null,
      pi_args: piArgs,
    },
  };
}

/**
 * A prompt is a readable regular file named relative to the profile directory, and it stays inside
 * the profiles directory: `../_shared/lead.md` is fine, `../../.ssh/id_ed25519` is not.
 */
async function promptProblem(root: string, dir: string, prompt: string): Promise<string | null> {
  const shown = JSON.stringify(squeezedLine(prompt));
  if (CONTROL.test(prompt)) return `prompt ${shown} contains a control character`;
  if (isAbsolute(prompt)) return `prompt ${shown} must be relative to the profile directory`;
  const path = resolve(dir, prompt);
  const inside = relative(resolve(root), path);
  if (inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    return `prompt ${shown} is outside ${root}`;
  }
  const problem = await fileProblem(path, Number.POSITIVE_INFINITY);
  return problem === null ? null : `prompt file ${shown} ${problem}`;
}

type Kind = 'dir' | 'file' | 'other' | 'missing';

async function kindOf(path: string): Promise<Kind> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A dangling symlink or an unreadable parent still names something: only ENOENT is absence.
    return code === 'ENOENT' ? 'missing' : 'other';
  }
}

/** Why `path` cannot be read as a small regular file, or null. Never opens a FIFO or a device. */
async function fileProblem(path: string, maxBytes: number): Promise<string | null> {
  let stats: Awaited<ReturnType<typeof stat>>;
  try {
    stats = await stat(path);
  } catch (error) {
    const code = codeOf(error);
    return code === 'ENOENT' ? 'is missing' : `cannot be read (${code})`;
  }
  if (stats.isDirectory()) return 'is a directory';
  if (!stats.isFile()) return 'is not a regular file';
  if (stats.size > maxBytes) return `is larger than ${maxBytes} bytes`;
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    return `cannot be read (${codeOf(error)})`;
  }
  return null;
}

function describeIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${PROFILE_FILE} is invalid`;
  const key = issue.path[0];
  if (key === undefined) return `${PROFILE_FILE} must hold a JSON object`;
  const rule = typeof key === 'string' ? RULES[key] : undefined;
  return `${String(key)} ${rule ?? squeezedLine(issue.message)}`;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? squeezedLine(messageOf(error));
}
