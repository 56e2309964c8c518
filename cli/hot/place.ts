// `place` as a bundle of its own (see entry.ts).
import { placeCommand } from '../commands/place.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('place', placeCommand);
