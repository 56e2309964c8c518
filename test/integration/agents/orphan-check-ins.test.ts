// Every check-in on the host lists the orphaned children the service keeps open (from items.json,
// through the orphan source serve gives the watchdog), escape-free and one line each.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { orphanSource } from '../../../service/daemon/agents/orphans-pass.js';
import { WatchdogWorker } from '../../../service/daemon/agents/watchdog-worker.js';
import { statePaths } from '../../../service/state/paths.js';
import { type InboxBox, inboxPair, type PaneRef, registerClaude } from '../../helpers/inbox-fixture.js';
import { agentPane, checkIns, childItem, MIN, T0, writeItems, writePanes } from './watchdog-fixtures.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
});

afterEach(async () => {
  await t.close();
});

function watchdog(now: () => number): WatchdogWorker {
  const io = { paths: statePaths(t.box.state), now, warn: () => undefined };
  return new WatchdogWorker({
    ...io,
    env: t.envOf('w_none:p_none'),
    home: t.box.home,
    children: orphanSource(io),
  });
}

describe('check-ins and orphans', () => {
  it("lists every orphan on the host in an owner's check-in, escape-free", async () => {
    await registerClaude(t, lead);
    await writeItems(t, [
      childItem(lead, child),
      childItem(lead, child, {
        id: 'i_orphan',
        owner: 'w404:p1',
        pane: 'w9:p1',
        terminal_id: 'term-gone-owner',
        name: 'stray\u001b[2J',
        orphaned: { reason: 'unpushed: 2 commits only on feat/x\u001b]0;t\u0007', since_ms: T0 },
      }),
      childItem(lead, child, { id: 'i_plain', owner: 'w404:p1', pane: 'w9:p2', terminal_id: 'term-plain' }),
    ]);
    await writePanes(t, [agentPane(lead, { state: 'idle' }), agentPane(child, { state: 'working' })]);
    await watchdog(() => T0).pass();
    await watchdog(() => T0 + 30 * MIN).pass();
    const [posted] = await checkIns(t, lead);
    expect(posted?.text).toContain(
      'Orphaned on this host:\n- stray (w9:p1): orphaned: unpushed: 2 commits only on feat/x',
    );
    expect(posted?.text).not.toMatch(/[\u001b\u0007]/);
    expect(posted?.text).not.toContain('i_plain');
  });
});
