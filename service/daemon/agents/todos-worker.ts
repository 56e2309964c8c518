// The service's todos worker: rebuilds todo-sections.json from the live agent panes of this host's
// snapshot (probe.agent_panes) and their todo-lines publications, at the work pace and at once when
// host.json changes. It writes only when something changed; the service lock makes it the only
// writer, so a whole-file atomic replace is enough.

import { messageOf } from '../../core/common/errors.js';
import { writeState } from '../../state/engine/store.js';
import type { StateIO } from '../../state/io.js';
import { TodoSectionsSchema } from '../../state/schemas/sidebar-schemas.js';
import { collectTodos, readTodoSections, sameTodos } from '../../todos/sections.js';
import { rereadHostSnapshot } from '../publish/snapshot-reread.js';
import { WORK_PACE_MS } from '../queue/admission-worker.js';
import { runLoop } from '../work-loop.js';
import type { WorkerIO } from '../worker-io.js';

const MIN_GAP_MS = 50;

export class TodosWorker {
  constructor(private readonly io: StateIO) {}

  /** One pass; returns whether todo-sections.json was written. */
  async pass(): Promise<boolean> {
    const { io } = this;
    const snapshot = await rereadHostSnapshot(io);
    const panes = (snapshot?.probe.agent_panes ?? []).map((p) => ({
      pane: p.pane,
      terminal_id: p.terminal_id,
    }));
    const next = await collectTodos(io.paths, panes, io.now());
    const current = await readTodoSections(io).catch(() => undefined);
    if (sameTodos(current, next)) return false;
    await writeState(io.paths.todoSections, TodoSectionsSchema, next);
    return true;
  }
}

export function startTodosWorker(io: WorkerIO, signal: AbortSignal): { stop: () => Promise<void> } {
  const stopper = new AbortController();
  const worker = new TodosWorker(io);
  const done = runLoop({
    name: 'todos',
    paceMs: Math.max(WORK_PACE_MS, io.paceMs ?? WORK_PACE_MS),
    minGapMs: MIN_GAP_MS,
    signal: AbortSignal.any([signal, stopper.signal]),
    warn: io.warn,
    pass: async () => {
      try {
        await worker.pass();
      } catch (error) {
        throw new Error(`todo-sections.json: ${messageOf(error)}`);
      }
    },
    watch: { dir: io.paths.dir, files: ['host.json'] },
  });
  return {
    stop: async () => {
      stopper.abort();
      await done;
    },
  };
}
