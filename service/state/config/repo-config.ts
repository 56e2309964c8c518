// A repository's own configuration: the optional dogsled.toml at the root of its main checkout
// (spec, "Repository configuration"). Unknown keys and wrong types are errors naming the key and the
// file, and every setup/teardown command's placeholders are checked here, so a bad `{x}` is
// reported before any worktree is made or removed. Loading never writes anything.

import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { templateProblem } from '../../core/agents/command-template.js';
import { DogsledError } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { lazySchema } from '../engine/lazy-schema.js';
import { readTomlFile, unknownKeys } from '../engine/toml-file.js';
import '../engine/zod-messages.js';

export const REPO_CONFIG_FILE = 'dogsled.toml';

export interface RepoConfig {
  /** The file that was read, or null when the main checkout has none (the defaults apply). */
  file: string | null;
  worktree: {
    /** As written: relative to the main checkout. */
    dir: string;
    /** `dir` resolved against the main checkout. */
    dir_path: string;
    /** Run in a new worktree after creation, in order. */
    setup: string[];
    /** Run in a worktree before its removal, in order. */
    teardown: string[];
  };
}

export const DEFAULT_WORKTREE_DIR = '.worktrees';

const RULES: Record<string, string> = {
  worktree: 'must be a table',
  'worktree.dir': 'must be a non-empty path relative to the main checkout',
  'worktree.setup': 'must be an array of non-empty command strings',
  'worktree.teardown': 'must be an array of non-empty command strings',
};

const commands = lazySchema(() => z.array(z.string().check(z.minLength(1))));

const FileSchema = lazySchema(() =>
  z.strictObject({
    worktree: z._default(
      z.strictObject({
        dir: z._default(
          z.string().check(
            z.minLength(1),
            z.refine((dir) => !isAbsolute(dir)),
          ),
          DEFAULT_WORKTREE_DIR,
        ),
        setup: z._default(commands, () => []),
        teardown: z._default(commands, () => []),
      }),
      () => ({ dir: DEFAULT_WORKTREE_DIR, setup: [], teardown: [] }),
    ),
  }),
);

/** The configuration of the repository whose main checkout is `mainCheckout`. */
export async function loadRepoConfig(mainCheckout: string): Promise<RepoConfig> {
  const main = resolve(mainCheckout);
  const file = join(main, REPO_CONFIG_FILE);
  const fail = (problem: string): DogsledError => new DogsledError(`repository config ${file}: ${problem}`);
  // readTomlFile refuses a FIFO, directory or device ('not a regular file') without blocking.
  const data = await readTomlFile(file, fail);
  if (data === undefined) return defaults(main);
  const parsed = FileSchema.safeParse(data);
  if (!parsed.success) throw fail(describe(parsed.error));
  const { dir, setup, teardown } = parsed.data.worktree;
  for (const [key, list] of [
    ['setup', setup],
    ['teardown', teardown],
  ] as const) {
    for (const [index, command] of list.entries()) {
      const problem = templateProblem(command);
      if (problem !== null) throw fail(`worktree.${key}[${index}]: ${problem}`);
    }
  }
  return { file, worktree: { dir, dir_path: resolve(main, dir), setup, teardown } };
}

function defaults(main: string): RepoConfig {
  return {
    file: null,
    worktree: {
      dir: DEFAULT_WORKTREE_DIR,
      dir_path: join(main, DEFAULT_WORKTREE_DIR),
      setup: [],
      teardown: [],
    },
  };
}

/** One problem, unknown keys first: a typo usually explains the other complaints. */
function describe(error: z.core.$ZodError): string {
  const unknown = unknownKeys(error);
  if (unknown) return unknown;
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const key = issue.path
    .filter((part): part is string => typeof part === 'string')
    .slice(0, 2)
    .join('.');
  return `${key} ${RULES[key] ?? squeezedLine(issue.message)}`;
}
