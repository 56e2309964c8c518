// Loads zod's English messages, so a quarantine warning or a config error says what was wrong
// rather than "Invalid input". Imported for its effect by the modules that define schemas. Schema
// modules import `* as z from 'zod/mini'` themselves and never re-export the namespace: an escaped
// namespace defeats tree-shaking and would put all of zod in every command's start-up.

import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
