// How a port forwarded to a Herdr machine explains itself: herdr.ts's forwardedPort and the headless
// port's forwarded-later.ts, which answers it before Herdr's adapter is loaded, say the same.

/** Through `binary` (`--machine`), or refused: without a binary every forwarded call is refused. */
export function forwardedWhy(machine: string, binary: string | undefined): string {
  return binary ? `forwarded to machine ${machine} through ${binary}` : 'no herdr binary is on PATH';
}
