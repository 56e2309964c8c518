// `npm run check`'s layering script on a fixture tree: a zod schema built at a module's top level
// (outside lazySchema) is refused, since every command that imports the module pays for it at
// start-up; and a child process reached through process.getBuiltinModule is still an import.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureTree } from '../helpers/tree.js';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'check-imports.mjs');

function check(root: string): { code: number | null; lines: string[] } {
  const result = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { code: result.status, lines: result.stderr.split('\n').filter((line) => line !== '') };
}

const ZOD = "import * as z from 'zod/mini';\nimport { lazySchema } from './lazy-schema.js';\n";

describe('the start-up check', () => {
  it('refuses a schema built at import and a child process loaded as a builtin outside its owner', async () => {
    const root = await fixtureTree({
      'service/state/eager.ts': `${ZOD}export const A = z.looseObject({ a: z.string() });\n`,
      'service/state/nested.ts': `${ZOD}export const B = lazySchema(() => z.int());\nexport const C = [z.string()];\n`,
      'cli/render/field.ts': `${ZOD}const id = z.string().check(z.minLength(1));\nexport const f = () => id;\n`,
      'service/cleanup/builtin.ts':
        "export const spawn = () => process.getBuiltinModule('node:child_process').spawn;\n",
    });
    const result = check(root);
    expect(result.code).toBe(1);
    expect(result.lines.sort()).toEqual([
      'cli/render/field.ts:3: builds a zod schema at import; wrap it in lazySchema (service/state/lazy-schema.ts)',
      'service/cleanup/builtin.ts: starts processes itself (node:child_process); use service/process/run.ts',
      'service/state/eager.ts:3: builds a zod schema at import; wrap it in lazySchema (service/state/lazy-schema.ts)',
      'service/state/nested.ts:4: builds a zod schema at import; wrap it in lazySchema (service/state/lazy-schema.ts)',
    ]);
  });

  it('lets schemas be built lazily, inside functions, in the MCP modules and in the output documents', async () => {
    const root = await fixtureTree({
      'service/state/lazy.ts': [
        ZOD,
        '// z.looseObject({}) in a comment is not code.',
        'export const A = lazySchema(() => z.looseObject({ a: z.string(), b: z.array(z.int()) }));',
        'export const B = lazySchema(() => z.pick(A, { a: true }));',
        'export function parse(value: unknown) {',
        '  return z.safeParse(z.string(), value);',
        '}',
        'export const check = (value: unknown) => z.int().safeParse(value);',
        '',
      ].join('\n'),
      'cli/mcp/inputs.ts': `${ZOD}export const Input = z.strictObject({});\n`,
      'cli/output-schemas.ts': `${ZOD}export const Placed = z.strictObject({});\n`,
      'service/process/run.ts':
        "export const spawn = () => process.getBuiltinModule('node:child_process').spawn;\n",
    });
    const result = check(root);
    expect(result.lines).toEqual([]);
    expect(result.code).toBe(0);
  });
});
