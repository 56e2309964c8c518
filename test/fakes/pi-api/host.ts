// A Pi process for end-to-end tests: loads the BUILT extension (plugins/pi/dist/index.js, argv[2])
// into the fake Pi host, starts a session and stays alive like an idle Pi, writing one JSON line per
// session entry to argv[3]. FAKE_PI_WRITES=never makes a Pi that accepts messages and never writes
// them (killed before it could). SIGTERM shuts the session down and exits.
// Bundled by test/fakes/pi-api/host-build.ts; run with `node host.mjs EXTENSION LOG`.

import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { ExtensionAPI } from '../../../plugins/pi/src/pi-api.js';
import { FakePi } from './fake-pi.js';

const [extension, log] = process.argv.slice(2) as [string, string];
const fake = new FakePi({
  writes: process.env.FAKE_PI_WRITES === 'never' ? 'never' : 'auto',
  onAppend: (entry) =>
    appendFileSync(log, `${JSON.stringify({ kind: 'entry', entry, turns: fake.turns })}\n`),
});
const original = fake.api.sendMessage;
fake.api.sendMessage = (message, options) => {
  appendFileSync(log, `${JSON.stringify({ kind: 'sent', message, options, at_ms: Date.now() })}\n`);
  original(message, options);
};
const factory = (await import(pathToFileURL(extension).href)).default as (pi: ExtensionAPI) => void;
factory(fake.api);
await fake.startSession();
appendFileSync(log, `${JSON.stringify({ kind: 'ready' })}\n`);
process.on('SIGTERM', () => {
  void fake.shutdown().then(() => process.exit(0));
});
setInterval(() => {}, 1 << 30);
