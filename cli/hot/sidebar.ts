// `sidebar` as a bundle of its own (see entry.ts): the board a person opens and waits for, compiled
// with V8's code cache like the hooks (blessed stays outside it, loaded from node_modules).
import { sidebarCommand } from '../commands/sidebar.js';
import { hotEntry } from './entry.js';

export const run = hotEntry('sidebar', sidebarCommand);
