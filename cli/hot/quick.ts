// `dogsled --version`, `-V`, `--help` and `-h` alone (quick-answers.ts), loaded by the entry with a
// plain require: neither the dispatcher, its code cache nor the cache writer a first run would load
// (an ES module) for an answer this small, and the entry, which Node compiles from source on every
// run, does not carry it for every other command.

export { quickAnswer } from '../quick-answers.js';
