// What the page says after Stop: the line `dogsled stop` prints (cli/render/jobs-human.ts), and for
// a ticket that settled before it ran, why nothing runs. Pure.

import { renderStopOutcome } from '../cli/render/jobs-human.js';
import type { StopRefOutcome } from '../service/actions/dash.js';

export function stopText(outcome: StopRefOutcome): string {
  if (outcome.kind === 'settled') return `${outcome.ticket.id} ${outcome.why}: nothing runs`;
  return renderStopOutcome(outcome);
}
