// One of Node's own bindings by name (process.binding), for the hot paths' few uses of what a
// built-in module is a thin layer over, where loading the module costs more than the use: the pipe
// handle under node:net (pipe-handle.ts), the host name under node:os (state/engine/liveness.ts).
// process.binding is deprecated in documentation only (DEP0111; a warning under
// --pending-deprecation, silenced here: a hook prints nothing but its answer). A caller treats a
// binding that is missing or not shaped as it expects (a future Node may drop or change it) as
// absent, and uses the module.

/** A binding by its name, or undefined where process.binding refuses it; no deprecation warning. */
export function nodeBinding(name: string): Record<string, unknown> | undefined {
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
