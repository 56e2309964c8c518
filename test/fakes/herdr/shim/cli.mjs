// The fake `herdr` CLI's Node entry, run by ../bin/herdr: see ../README.md and main.mjs.
import { main } from './main.mjs';

await main();
