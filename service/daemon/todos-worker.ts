// The service's todos worker: rebuilds todo-sections.json from the live agent panes of this host's
// snapshot (probe.agent_panes) and their todo-lines publications, at the work pace and at once when
// host.json changes. It writes only when something changed; the service lock makes it the only
// writer, so a whole-file atomic replace is enough.

import { messageOf } from '../errors.js';
import { HostSnapshotSchema } from '../state/schemas.js';
import { TodoSectionsSchema } from '../state/sidebar-schemas.js';
import { readState, writeState } from '../state/store.js';
import { collectTodos, readTodoSections, sameTodos } from '../todos/sections.js';
import { WORK_PACE_MS } from './admission.js';
import type { WorkerDeps } from './work-deps.js';
import { runLoop } from './work-loop.js';

const MIN_GAP_MS = 50;

export class TodosWorker {
  constructor(private readonly deps: WorkerDeps) {}

  /** One pass; returns whether todo-sections.json was written. */
  async pass(): Promise<boolean> {
    const { deps } = this;
    const snapshot = await readState(deps.paths.host, HostSnapshotSchema, deps);
    const panes = (snapshot?.probe.agent_panes ?? []).map((p) => ({
      pane: p.pane,
      terminal_id: p.terminal_id,
    }));
    const next = await collectTodos(deps.paths, panes, deps.now());
    const current = await readTodoSections(deps.paths, deps).catch(() => undefined);
    if (sameTodos(current, next)) return false;
    await writeState(deps.paths.todoSections, TodoSectionsSchema, next);
    return true;
  }
}

export function startTodosWorker(deps: WorkerDeps, signal: AbortSignal): { stop: () => Promise<void> } {
  const stopper = new AbortController();
  const worker = new TodosWorker(deps);
  const done = runLoop({
    name: 'todos',
    paceMs: Math.max(WORK_PACE_MS, deps.paceMs ?? WORK_PACE_MS),
    minGapMs: MIN_GAP_MS,
    signal: AbortSignal.any([signal, stopper.signal]),
    warn: deps.warn,
    pass: async () => {
      try {
        await worker.pass();
      } catch (error) {
        throw new Error(`todo-sections.json: ${messageOf(error)}`);
      }
    },
    watch: { dir: deps.paths.dir, files: ['host.json'] },
  });
  return {
    stop: async () => {
      stopper.abort();
      await done;
    },
  };
}
