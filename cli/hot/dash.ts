// `dash` as a bundle of its own (see entry.ts): the page a person opens and waits for, compiled with
// V8's code cache. No other command loads it, and it loads no other command's bundle.
import { dashCommand } from '../commands/dash.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('dash', dashCommand);
