// `dogsled host todos [--json]`: this host's todo-sections.json (the todos of its live agent panes,
// or why each is unavailable), for a peer's sidebar. The output is JSON either way; `--json` is
// accepted so the spec's spelling works.

import { DogsledError } from '../core/common/errors.js';
import { readTodoSections } from '../todos/sections.js';
import type { VerbIO, VerbResult } from './verb-table.js';

export async function todosVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const extra = args.find((arg) => arg !== '--json');
  if (extra !== undefined) throw new DogsledError(`host todos: takes only --json, got "${extra}"`);
  return { value: await readTodoSections(io) };
}
