// `npm run check`'s test-knob rule on a fixture tree: a production file that names DOGSLED_TEST or a
// DOGSLED_TEST_* variable in code (an env key, an index, a string, a destructured name) is refused;
// the knob module may, and comments, longer names, build output and tests are not product code.
import { describe, expect, it } from 'vitest';
import { importProblems } from '../../../scripts/imports/rules.mjs';
import { fixtureTree } from '../../helpers/tree.js';

const OWNER = 'ask service/core/common/test-knobs.ts (testKnob)';

describe('the test-knob check', () => {
  it('refuses a knob named in code outside the knob module', async () => {
    const root = await fixtureTree({
      'service/daemon/pace.ts':
        'export const pace = (env: NodeJS.ProcessEnv) => Number(env.DOGSLED_TEST_PEERS_PACE_MS);\n',
      'service/hosts/gate.ts': "export const on = (env: NodeJS.ProcessEnv) => env.DOGSLED_TEST === '1';\n",
      'cli/commands/index.ts':
        "export const hosts = (env: NodeJS.ProcessEnv) => env['DOGSLED_TEST_SIDEBAR_HOSTS'];\n",
      'service/state/engine/drop.ts':
        'export const drop = (env: NodeJS.ProcessEnv) => {\n  delete env.DOGSLED_TEST_LOCK_HOLD_MS;\n};\n',
      'sidebar/fixture.ts':
        'export const root = ({ DOGSLED_TEST_PROBE_ROOT: root }: NodeJS.ProcessEnv) => root;\n',
      'service/core/agents/warn.ts':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source code with a template.
        'export const warn = (raw: string) => `DOGSLED_TEST_STALL_MS is ${raw}`;\n',
      'plugins/pi/src/clock.ts': "export const name = 'DOGSLED_TEST_NOW_MS';\n",
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      `cli/commands/index.ts: names the test knob DOGSLED_TEST_SIDEBAR_HOSTS; ${OWNER}`,
      `plugins/pi/src/clock.ts: names the test knob DOGSLED_TEST_NOW_MS; ${OWNER}`,
      `service/core/agents/warn.ts: names the test knob DOGSLED_TEST_STALL_MS; ${OWNER}`,
      `service/daemon/pace.ts: names the test knob DOGSLED_TEST_PEERS_PACE_MS; ${OWNER}`,
      `service/hosts/gate.ts: names the test knob DOGSLED_TEST; ${OWNER}`,
      `service/state/engine/drop.ts: names the test knob DOGSLED_TEST_LOCK_HOLD_MS; ${OWNER}`,
      `sidebar/fixture.ts: names the test knob DOGSLED_TEST_PROBE_ROOT; ${OWNER}`,
    ]);
  });

  it('lets the knob module name them, and anyone mention them in comments or longer names', async () => {
    const root = await fixtureTree({
      'service/core/common/test-knobs.ts': [
        "export const on = (env: Record<string, string>) => env.DOGSLED_TEST === '1';",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source code with a template.
        'export const variable = (name: string) => `DOGSLED_TEST_${name}`;',
        '',
      ].join('\n'),
      'service/daemon/pace.ts': [
        '// The PEERS_PACE_MS knob (DOGSLED_TEST_PEERS_PACE_MS) shortens the pace.',
        '/** Only with DOGSLED_TEST=1. */',
        "export const DOGSLED_TESTING = 'DOGSLED_TESTING';",
        '',
      ].join('\n'),
      'plugins/pi/dist/index.js': 'export const now = process.env.DOGSLED_TEST_NOW_MS;\n',
      'test/integration/env.ts': "export const env = { DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: '5' };\n",
    });
    expect(await importProblems(root)).toEqual([]);
  });
});
