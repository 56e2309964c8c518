// DOGSLED_TIMING=1's start-up stages (service/time/timing.ts), for the front ends' entry points and
// hot commands: a re-export, so a front end reaches the stage timer through actions like everything
// else of the service. It adds nothing to load: timing.ts imports nothing.

export { cpuMs, mark, STARTED_EVENT, span, startedUp } from '../time/timing.js';
