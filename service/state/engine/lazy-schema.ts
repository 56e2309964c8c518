// Schemas built on first use rather than at import. Building a zod schema costs tens of
// microseconds per node, and a state-schema module holds hundreds of nodes: built at import, they
// were most of a hook's start-up (every hook, every prompt), although a command parses a few files.
// `npm run check` refuses a zod schema built at a module's top level outside lazySchema.

/**
 * A stand-in for the schema `build` returns, built the first time anything reads it (a parse, or
 * a schema that contains it being parsed). Typed as the schema itself, so `z.infer`, `.safeParse`
 * and composition (`z.array(X)`, `z.pick(X, …)` inside another lazySchema) work unchanged.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => {
    if (built === undefined) built = build();
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
