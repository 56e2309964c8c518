// The peers lane's pace: the spec's 10-second reads set it, and only a test (DOGSLED_TEST=1) may
// shorten it with DOGSLED_TEST_PEERS_PACE_MS; anything but a positive whole number is ignored, and
// a value longer than the pace never lengthens it.
import { describe, expect, it } from 'vitest';
import { peersLanePaceMs } from '../../../service/daemon/peers/peers-worker.js';

const pace = (env: NodeJS.ProcessEnv, workPaceMs = 1_000) => peersLanePaceMs({ env }, workPaceMs);

describe('the peers lane pace', () => {
  it('is every 10 s, or the service interval when that is longer', () => {
    expect(pace({})).toBe(10_000);
    expect(pace({}, 20_000)).toBe(20_000);
  });

  it('takes DOGSLED_TEST_PEERS_PACE_MS only under DOGSLED_TEST=1', () => {
    expect(pace({ DOGSLED_TEST: '1', DOGSLED_TEST_PEERS_PACE_MS: '500' })).toBe(500);
    expect(pace({ DOGSLED_TEST_PEERS_PACE_MS: '500' })).toBe(10_000);
    expect(pace({ DOGSLED_TEST: '0', DOGSLED_TEST_PEERS_PACE_MS: '500' })).toBe(10_000);
  });

  it("only ever shortens the pace: a longer one, past a timer's reach say, keeps it", () => {
    for (const value of ['60000', String(2 ** 31), String(Number.MAX_SAFE_INTEGER)])
      expect(pace({ DOGSLED_TEST: '1', DOGSLED_TEST_PEERS_PACE_MS: value })).toBe(10_000);
  });

  it('ignores a value that is not a positive whole number of milliseconds', () => {
    for (const value of ['0', '-5', 'abc', '', '1.5', '1e400', '\u001b[31m5'])
      expect(pace({ DOGSLED_TEST: '1', DOGSLED_TEST_PEERS_PACE_MS: value })).toBe(10_000);
  });
});
