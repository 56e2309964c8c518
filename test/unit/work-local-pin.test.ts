import { describe, expect, it } from 'vitest';
import { pinnedHere } from '../../service/work/local-pin.js';

describe('pinnedHere', () => {
  it('pins work without a remote half to this host, named or not', () => {
    expect(pinnedHere(null, 'an agent')).toBe('local');
    expect(pinnedHere('local', 'an agent')).toBe('local');
  });

  it('refuses a peer in one line naming the flag and what cannot go there', () => {
    expect(() => pinnedHere('mac-mini', 'an agent')).toThrow(
      '--host mac-mini: an agent on a peer is not in this build yet; run it on that host',
    );
  });
});
