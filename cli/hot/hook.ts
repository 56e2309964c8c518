// `hook inbox|context|gate` as a bundle of its own (see entry.ts).
import { hookCommand } from '../commands/hook.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('hook', hookCommand);
