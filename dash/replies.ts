// What the page says after Stop, in the words `dogsled stop` prints. Pure.

import type { StopRefOutcome } from '../service/actions/dash.js';
import { endToken } from '../service/core/jobs/job-status.js';
import { plainLine } from '../service/core/text/clean.js';

export function stopText(outcome: StopRefOutcome): string {
  if (outcome.kind === 'settled') return `${outcome.ticket.id} ${outcome.why}: nothing runs`;
  const { record } = outcome;
  switch (outcome.kind) {
    case 'ended':
      return `${record.id} already ended (${plainLine(endToken(record))})`;
    case 'requested':
      return `${record.id} has not started: stop requested; it ends as stopped when it starts`;
    case 'stopped': {
      const how = outcome.sent === null ? 'its process group was already gone' : `sent ${outcome.sent}`;
      return record.reason === 'stopped'
        ? `${record.id} stopped (${how})`
        : `${record.id} ended (${plainLine(endToken(record))}; ${how})`;
    }
    case 'signalled': {
      const what = outcome.sent === null ? 'stop requested' : `sent ${outcome.sent}`;
      return `${record.id}: ${what}; its wrapper has not recorded the end yet`;
    }
  }
}
