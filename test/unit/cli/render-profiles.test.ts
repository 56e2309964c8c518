import { describe, expect, test } from 'vitest';
import { renderProfiles } from '../../../cli/render/profiles-human.js';
import type { ProfileRow } from '../../../service/agents/profiles-report.js';

const row = (name: string, extra: Partial<ProfileRow> = {}): ProfileRow => ({
  name,
  path: `/h/.config/dogsled/profiles/${name}`,
  description: null,
  model: null,
  thinking: null,
  role: null,
  prompt: [],
  pi_args: [],
  broken: null,
  ...extra,
});

describe('renderProfiles', () => {
  test('aligns names and joins what is set, broken ones with their reason', () => {
    const lines = renderProfiles(
      {
        dir: '/h',
        profiles: [
          row('general', { model: 'alias/sol', thinking: 'medium', role: 'writer', description: 'Units' }),
          row('bare'),
          row('old', { broken: 'prompt file "p.md" is missing' }),
        ],
      },
      80,
    );
    expect(lines).toEqual([
      'general  alias/sol · thinking medium · writer · Units',
      'bare     default model',
      'old      broken: prompt file "p.md" is missing',
    ]);
  });

  test('clips to the width and shows profile text as one escape-free line', () => {
    const [line] = renderProfiles(
      {
        dir: '/h',
        profiles: [row('x\u001b[31m', { description: `a\u001b]0;t\u0007b\n${'c'.repeat(100)}` })],
      },
      40,
    );
    expect(line).toHaveLength(40);
    expect(line?.endsWith('…')).toBe(true);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  test('says where it looked when there are none', () => {
    expect(renderProfiles({ dir: '/h/p', profiles: [] }, 80)).toEqual(['no profiles in /h/p']);
  });
});
