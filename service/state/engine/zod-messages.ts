// Loads zod's English messages, so a quarantine warning or a config error says what was wrong
// rather than "Invalid input", and turns off zod's compiled object parsers. Imported for its effect
// by the modules that define schemas. Schema modules import `* as z from 'zod/mini'` themselves and
// never re-export the namespace: an escaped namespace defeats tree-shaking and would put all of zod
// in every command's start-up.

import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// jitless: zod otherwise compiles a parser (new Function) for each object schema on its first
// parse, which pays off after thousands of parses; a command parses each file once or twice.
config({ ...en(), jitless: true });
