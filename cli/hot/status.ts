// `status` as a bundle of its own (see entry.ts).
import { statusCommand } from '../commands/status.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('status', statusCommand);
