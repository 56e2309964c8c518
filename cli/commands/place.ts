// `dogsled place [--host ID] [--json] [--wait] [--max D]`: reserve room on the best host
// (service/actions/place.ts) and print the reservation. When every host is full (or earlier tickets
// wait for the same hosts), the request becomes a FIFO ticket: one human line naming it (with
// --json `{"queued":true,"ticket":…}`) and exit 1, or with --wait the placement once the service
// admits it. With --json, stdout holds exactly one document (output-schemas.ts).

import { Deadline } from '../../service/actions/call-budget.js';
import { placeRequest } from '../../service/actions/place.js';
import type { UserIO } from '../../service/actions/verb-io.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import type { CliContext } from '../context.js';
import { cwdFlag, hostFlag, maxFlag } from '../flags.js';
import { hostIO } from '../io.js';
import type { StillQueued } from '../output-schemas.js';
import { placedText } from '../render/placed.js';
import { queuedLine, staysQueued, whyQueued } from '../render/queued.js';
import { untilStopped } from '../stop-signal.js';

export interface PlaceFlags {
  json?: boolean;
  host?: string;
  wait?: boolean;
  max?: string;
  branch?: string;
  base?: string;
  repo?: string;
}

export async function placeCommand(flags: PlaceFlags, ctx: CliContext): Promise<number> {
  if (flags.branch === undefined && (flags.base !== undefined || flags.repo !== undefined)) {
    throw new DogsledError(`${flags.base !== undefined ? '--base' : '--repo'} needs --branch`);
  }
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max));
  const pin = hostFlag(flags.host);
  const branch =
    flags.branch === undefined
      ? null
      : { name: flags.branch, base: flags.base ?? null, repo: await repoFlag(flags.repo) };
  const io = await hostIO(ctx);
  const user: UserIO = {
    // As `run` and `agent`: one human line, or the ticket as JSON (--json); a wait keeps stdout for
    // what it ends with (the placement, or `still running`) and names the ticket on stderr.
    queued: (queued) => {
      if (!flags.json && !flags.wait) {
        ctx.out(`${queuedLine(queued, 'reserves its room')}\n`);
        return;
      }
      if (!flags.wait) ctx.out(`${JSON.stringify({ queued: true, ticket: queued.ticket.id })}\n`);
      const waiting = flags.wait ? '; waiting for its admission' : '';
      ctx.warn(`dogsled: place: queued as ${queued.ticket.id}: ${whyQueued(queued)}${waiting}`);
    },
    untilStopped,
  };
  const outcome = await placeRequest(
    { ...io, ...user },
    { pin, wait: Boolean(flags.wait), branch },
    deadline,
  );
  if (outcome.kind === 'queued') return EXIT.queued;
  if (outcome.kind === 'still-queued') {
    const id = outcome.ticket.id;
    if (outcome.why === 'interrupted') {
      ctx.warn(staysQueued('place', id, 'interrupted'));
      return EXIT.interrupted;
    }
    const still: StillQueued = { queued: true, ticket: id, still_running: true };
    ctx.out(flags.json ? `${JSON.stringify(still)}\n` : 'still running\n');
    ctx.warn(staysQueued('place', id, 'deadline'));
    return EXIT.stillRunning;
  }
  ctx.out(placedText(Boolean(flags.json), outcome));
  return EXIT.ok;
}

/** `--repo PATH` (default: the current directory) as an absolute real path to a directory. */
async function repoFlag(text: string | undefined): Promise<string> {
  try {
    return await cwdFlag(text);
  } catch {
    throw new DogsledError(`--repo: no such directory: ${text ?? '.'}`);
  }
}
