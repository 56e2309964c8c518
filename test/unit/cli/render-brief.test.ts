import { describe, expect, it } from 'vitest';
import { BRIEF_MAX_LINES, renderBrief } from '../../../cli/render/status-brief.js';
import { hostViewFixture } from '../../helpers/host-view.js';
import { agentPaneFixture } from '../../helpers/snapshot.js';

const host = hostViewFixture;

describe('status --brief', () => {
  it('gives each of up to five hosts its own line, then the hint', () => {
    const lines = renderBrief(['local', 'a', 'b', 'c', 'd'].map((l) => host(l)));
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(
      'local 2/4 · mem 12.0 GiB free of 16.0 GiB · disk 40% free · agents 1 live, 1 active',
    );
    expect(lines[5]).toBe('details: dogsled status');
  });

  it('shares lines in a larger fleet so every host stays visible within six lines', () => {
    const hosts = Array.from({ length: 12 }, (_, i) => host(`h${i}`));
    const lines = renderBrief(hosts);
    expect(lines.length).toBeLessThanOrEqual(BRIEF_MAX_LINES);
    const text = lines.join('\n');
    for (const h of hosts) expect(text).toMatch(new RegExp(`\\b${h.label} 2/4\\b`));
  });

  it('counts stalled agents per host and in the hint line, also when hosts share lines', () => {
    const stalled = host('local');
    const pane = agentPaneFixture('w1:p2', 'working', 0, {
      agent: 'codex',
      transcript: '/t',
      transcript_modified: 0,
      terminal_id: 'term_1',
      completion_seq: 1,
      stalled_since_ms: 600_000,
    });
    if (stalled.probe) stalled.probe.agent_panes = [pane];
    expect(renderBrief([stalled])[0]).toContain('agents 1 live, 1 active, 1 stalled');
    expect(renderBrief([stalled]).at(-1)).toBe('1 stalled · details: dogsled status');
    const fleet = [stalled, ...Array.from({ length: 11 }, (_, i) => host(`h${i}`))];
    expect(renderBrief(fleet).at(-1)).toBe('1 stalled · details: dogsled status');
  });
});
