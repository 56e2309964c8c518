// One of Node's own bindings by name (process.binding), for the hot paths' few uses of what a
// built-in module is a thin layer over, where loading the module costs more than the use: the pipe
// handle under node:net (pipe-handle.ts; listening-socket.ts, where node:net's server would accept
// what is meant for a child and hides its descriptor), the process handle under node:child_process
// (process-handle.ts: the job supervisor's command, and the runner's children that take no input),
// the host name under node:os (state/engine/liveness.ts).
// process.binding is deprecated in documentation only (DEP0111; a warning under
// --pending-deprecation, silenced here: a hook prints nothing but its answer). A caller treats a
// binding that is missing or not shaped as it expects as absent, and uses the module.
//
// A shape check cannot see everything: a binding's C++ side checks its arguments with assertions
// that abort the process, and a release may change what a method takes (Node 24.x changed the
// process handle's spawn from one options object to positional arguments; called the old way, the
// process aborts). So a binding is given only on the Node majors this project's tests run on
// (CI runs the files that use them on each); on any other, every caller uses the module.

/** The Node majors whose bindings' use here the tests cover. */
export const VERIFIED_NODE_MAJORS: readonly number[] = [20, 22, 24, 26];

/** Whether this Node is one of VERIFIED_NODE_MAJORS. */
export function verifiedNode(version: string = process.versions.node): boolean {
  return VERIFIED_NODE_MAJORS.includes(Number.parseInt(version, 10));
}

/**
 * A binding by its name, or undefined where process.binding refuses it or this Node's major is not
 * one the tests cover; no deprecation warning.
 */
export function nodeBinding(name: string): Record<string, unknown> | undefined {
  if (!verifiedNode()) return undefined;
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true;
    return (process as unknown as { binding(name: string): Record<string, unknown> }).binding(name);
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}
