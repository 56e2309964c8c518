// The package's entry point, as Pi loads it: `export default function (pi: ExtensionAPI)`.

import { processDeps } from './deps.js';
import { dogsledExtension } from './extension.js';
import type { ExtensionAPI } from './pi-api.js';

export default function dogsled(pi: ExtensionAPI): void {
  dogsledExtension(processDeps())(pi);
}
