// Node's own bindings are given only on the majors the tests cover (service/process/node-binding.ts):
// a release may change what a binding's method takes, and a wrong call aborts the process.

import { describe, expect, it } from 'vitest';
import { nodeBinding, VERIFIED_NODE_MAJORS, verifiedNode } from '../../../service/process/node-binding.js';

describe('node-binding', () => {
  it('covers Node 20, 22, 24 and 26, whatever the minor, and no other major', () => {
    expect(VERIFIED_NODE_MAJORS).toEqual([20, 22, 24, 26]);
    for (const version of [
      '20.19.0',
      '20.20.2',
      '22.0.0',
      '22.23.5',
      '24.0.0',
      '24.22.3',
      '26.0.0',
      '26.12.1',
    ]) {
      expect(verifiedNode(version)).toBe(true);
    }
    for (const version of ['18.20.4', '21.7.3', '23.11.0', '25.0.0', '27.0.0', '', 'v24.1.0', 'x']) {
      expect(verifiedNode(version)).toBe(false);
    }
  });

  it('gives a binding on a covered Node, and undefined for a name Node refuses', () => {
    if (!verifiedNode()) {
      expect(nodeBinding('os')).toBeUndefined();
      return;
    }
    expect(typeof nodeBinding('os')?.getHostname).toBe('function');
    expect(nodeBinding('no_such_binding')).toBeUndefined();
  });
});
