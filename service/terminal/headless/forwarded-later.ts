// The headless port's forMachine: a port forwarded to a Herdr machine must be answered at once (the
// port's contract is synchronous), while Herdr's adapter (herdr/herdr.ts, with its record schemas
// and zod) is what a headless `run` must not load. So the forwarded port's fixed facts are known here
// and each of its calls loads the adapter on first use and is made on the real forwarded port.

import { forwardedWhy } from '../herdr/forwarded-why.js';
import type { TerminalPort } from '../port.js';

export function forwardedLater(
  machine: string,
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  routineMs: number,
): TerminalPort {
  let real: Promise<TerminalPort> | undefined;
  const port = () => {
    real ??= import('../herdr/herdr.js').then(({ forwardedPort }) =>
      forwardedPort(machine, binary, env, routineMs),
    );
    return real;
  };
  // A forwarded port always speaks through the CLI transport (or refuses): herdr.ts's kind for it.
  const fixed: Partial<TerminalPort> = {
    kind: 'herdr-cli',
    why: forwardedWhy(machine, binary),
    insideHerdr: false,
    server: undefined,
    machine,
    forMachine: (other: string) => forwardedLater(other, binary, env, routineMs),
  };
  return new Proxy(fixed, {
    get(target, name) {
      if (Object.hasOwn(target, name)) return target[name as keyof TerminalPort];
      // Not a thenable (an async function may return the port), and no symbol-keyed behaviour.
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (...args: unknown[]) =>
        port().then((p) => (p[name as keyof TerminalPort] as (...a: unknown[]) => unknown).apply(p, args));
    },
  }) as TerminalPort;
}
