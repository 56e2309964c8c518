// Runs long commands (serve, status --watch) until SIGTERM or SIGINT, then lets them finish
// cleanly. Handlers use process.on and are removed afterwards, never process.once: proper-lockfile's
// signal-exit re-raises a signal when it sees no listener but its own, which would kill the process.

export async function untilStopped<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    return await run(controller.signal);
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}
