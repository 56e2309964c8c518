// The pure rules of a job's environment and its reservation's end.

import { describe, expect, it } from 'vitest';
import {
  callerEnvironment,
  jobEnvironment,
  STANDBY_ENV,
  SUPERVISOR_ENV,
  WARM_ENV,
} from '../../../service/core/jobs/job-env.js';
import { withoutReservations } from '../../../service/core/placement/reservations.js';
import { paneVariables } from '../../../service/terminal/herdr/herdr-env.js';

describe("a job's environment", () => {
  const caller = {
    PATH: '/caller/bin',
    TOKEN: 'secret',
    HERDR_ENV: '1',
    HERDR_PANE_ID: 'w1:p1',
    HERDR_TAB_ID: 'w1:t1',
    HERDR_WORKSPACE_ID: 'w1',
    HERDR_SOCKET_PATH: '/run/h.sock',
    PWD: '/caller/dir',
    [SUPERVISOR_ENV]: '1',
    UNSET: undefined,
  };

  it("is the caller's, with the job pane's Herdr variables and PWD at its directory", () => {
    const pane = {
      PATH: '/pane/bin',
      HERDR_ENV: '1',
      HERDR_PANE_ID: 'w2:p3',
      HERDR_TAB_ID: 'w2:t2',
      HERDR_WORKSPACE_ID: 'w2',
    };
    expect(jobEnvironment(caller, pane, '/job', paneVariables(pane))).toEqual({
      PATH: '/caller/bin',
      TOKEN: 'secret',
      HERDR_ENV: '1',
      HERDR_PANE_ID: 'w2:p3',
      HERDR_TAB_ID: 'w2:t2',
      HERDR_WORKSPACE_ID: 'w2',
      HERDR_SOCKET_PATH: '/run/h.sock',
      PWD: '/job',
    });
  });

  it('headless (pane variables cleared) has none of them, never the caller pane', () => {
    const wrapper = { HERDR_ENV: '', HERDR_PANE_ID: '' };
    const env = jobEnvironment(caller, wrapper, '/job', paneVariables(wrapper));
    for (const key of ['HERDR_ENV', 'HERDR_PANE_ID', 'HERDR_TAB_ID', 'HERDR_WORKSPACE_ID'])
      expect(env).not.toHaveProperty(key);
    expect(env.HERDR_SOCKET_PATH).toBe('/run/h.sock');
  });

  it("without a saved environment is the wrapper's, never with the supervisor markers", () => {
    // The warm supervisor's own environment is the service's, markers included.
    const wrapper = { PATH: '/w', [SUPERVISOR_ENV]: '1', [STANDBY_ENV]: '1', [WARM_ENV]: '1' };
    expect(jobEnvironment(undefined, wrapper, '/job', paneVariables(wrapper))).toEqual({
      PATH: '/w',
      PWD: '/job',
    });
    expect(callerEnvironment(caller)).not.toHaveProperty(SUPERVISOR_ENV);
    expect(callerEnvironment(caller)).not.toHaveProperty('UNSET');
  });
});

describe("a job's reservation", () => {
  it('ends with its job; other live reservations stay and expired ones go', () => {
    const r = (id: string, expires_ms: number) => ({ id, created_ms: 0, expires_ms, owner: null });
    const kept = withoutReservations(
      [r('r_job', 200), r('r_agent', 200), r('r_old', 100)],
      new Set(['r_job']),
      150,
    );
    expect(kept.map((x) => x.id)).toEqual(['r_agent']);
  });
});
