// The JSON Schemas `tools/list` shows are written out by hand (inputs.ts says why): each must say
// exactly what its zod schema checks, descriptions aside, so a model is never told one thing while
// the server checks another.

import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { TOOLS } from '../../../cli/mcp/tools.js';
import { SPEC_TOOLS } from '../../helpers/mcp-spec.js';

function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'description')
        .map(([key, inner]) => [key, withoutDescriptions(inner)]),
    );
  }
  return value;
}

describe('the MCP tools', () => {
  it("are the spec's tools, in its order", () => {
    expect(TOOLS.map((tool) => tool.name)).toEqual([...SPEC_TOOLS]);
  });

  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s lists the JSON Schema its zod schema converts to',
    (_name, tool) => {
      const { $schema, ...converted } = z.toJSONSchema(tool.input, { io: 'input' });
      expect($schema).toBeDefined();
      expect(withoutDescriptions(tool.json)).toEqual(converted);
    },
  );

  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s describes every argument to the model',
    (_name, tool) => {
      for (const property of Object.values(tool.json.properties))
        expect(property).toHaveProperty('description');
    },
  );
});
