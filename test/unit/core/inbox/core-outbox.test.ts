import { describe, expect, it } from 'vitest';
import type { Item } from '../../../../service/core/agents/item-types.js';
import {
  ackRecords,
  addRecord,
  awaitsPeer,
  claimRecords,
  forwardedBranches,
  keptRecords,
  OUTBOX_CLAIM_MAX,
  OUTBOX_RETENTION_MS,
  ownerItemsAfter,
} from '../../../../service/core/inbox/outbox-rule.js';
import type { OutboxRecord } from '../../../../service/core/inbox/outbox-types.js';
import { peerReason } from '../../../../service/hosts/peer-verb.js';

const NOW = 1_900_000_000_000;
const A = 'h_aaaaaaaaaaaa';
const B = 'h_bbbbbbbbbbbb';

function rec(id: string, owner = A, created = NOW, extra: Partial<OutboxRecord> = {}): OutboxRecord {
  return {
    id,
    owner_host: owner,
    item: 'i_1',
    ref: `ref:${id}`,
    created_ms: created,
    attempts: 0,
    lease_until_ms: null,
    ...extra,
  };
}

function item(extra: Partial<Item> = {}): Item {
  return {
    id: 'i_1',
    kind: 'agent',
    host: 'big',
    pane: 'w1:p2',
    terminal_id: 't_1',
    owner: 'w1:p1',
    created_ms: NOW - 1000,
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: null,
    name: 'kid',
    branch: 'feat/x',
    repository: '/home/p/src/x',
    ...extra,
  };
}

describe('the outbox rules', () => {
  it('posts each ref once per owner while it waits', () => {
    const first = addRecord([], rec('o_1', A, NOW, { ref: 'reply:i_1' }));
    expect(first.added).toBe(true);
    expect(addRecord(first.next, rec('o_2', A, NOW, { ref: 'reply:i_1' })).added).toBe(false);
    expect(addRecord(first.next, rec('o_3', B, NOW, { ref: 'reply:i_1' })).added).toBe(true);
  });

  it("claims the owner's free records oldest first, leases them, and offers them again when the lease ends", () => {
    const records = [rec('o_b', A, NOW - 1), rec('o_a', A, NOW - 2), rec('o_x', B, NOW - 3)];
    const { next, claimed } = claimRecords(records, A, NOW, 1000);
    expect(claimed.map((r) => [r.id, r.lease_until_ms, r.attempts])).toEqual([
      ['o_a', NOW + 1000, 1],
      ['o_b', NOW + 1000, 1],
    ]);
    expect(claimRecords(next, A, NOW + 999, 1000).claimed).toEqual([]);
    expect(claimRecords(next, A, NOW + 1000, 1000).claimed.map((r) => r.attempts)).toEqual([2, 2]);
    expect(next.find((r) => r.id === 'o_x')?.lease_until_ms).toBeNull();
  });

  it('takes at most a batch per claim', () => {
    const many = Array.from({ length: OUTBOX_CLAIM_MAX + 5 }, (_, i) => rec(`o_${i}`, A, NOW - 100 + i));
    expect(claimRecords(many, A, NOW, 1000).claimed).toHaveLength(OUTBOX_CLAIM_MAX);
  });

  it("acks only the owner's ids", () => {
    const { next, removed } = ackRecords([rec('o_1'), rec('o_2', B)], A, ['o_1', 'o_2', 'o_none']);
    expect(removed).toBe(1);
    expect(next.map((r) => r.id)).toEqual(['o_2']);
  });

  it('keeps records a week, for an owner that may come back', () => {
    const kept = keptRecords(
      [rec('o_old', A, NOW - OUTBOX_RETENTION_MS - 1), rec('o_new', A, NOW - OUTBOX_RETENTION_MS)],
      NOW,
    );
    expect(kept.map((r) => r.id)).toEqual(['o_new']);
  });
});

describe("the owner's items after a peer's records", () => {
  it("closes the item once with the child's reply and keeps the peer's branch facts", () => {
    const branch = { ahead: 2, dirty: false, landed: false, observed_ms: NOW - 5 };
    const records = [
      rec('o_1', A, NOW, { closed: { reason: 'done', reply: 'Finished.' } }),
      rec('o_2', A, NOW, { branch }),
      rec('o_3', A, NOW, { closed: { reason: 'pane gone', reply: null } }),
    ];
    const { next, changed } = ownerItemsAfter([item(), item({ id: 'i_2' })], 'big', records, NOW);
    expect(changed).toBe(true);
    expect(next[0]).toMatchObject({
      closed_ms: NOW,
      close_reason: 'done',
      reply: 'Finished.',
      branch_seen: branch,
    });
    expect(next[1]).toEqual(item({ id: 'i_2' }));
    expect(ownerItemsAfter([item()], 'small', records, NOW).changed).toBe(false);
    expect(forwardedBranches(next, 'local')).toEqual([
      { item: 'i_1', child: 'kid', host: 'big', repository: '/home/p/src/x', branch: 'feat/x', ...branch },
    ]);
  });

  it('never moves a branch back to an older observation (a record that came again late)', () => {
    const newer = { ahead: 0, dirty: false, landed: true, observed_ms: NOW - 5 };
    const older = { ahead: 2, dirty: true, landed: false, observed_ms: NOW - 50 };
    const seen = item({ branch_seen: newer });
    const late = ownerItemsAfter([seen], 'big', [rec('o_1', A, NOW, { branch: older })], NOW);
    expect(late).toEqual({ next: [seen], changed: false });
    const fresh = { ...newer, observed_ms: NOW };
    expect(
      ownerItemsAfter([seen], 'big', [rec('o_2', A, NOW, { branch: fresh })], NOW).next[0]?.branch_seen,
    ).toEqual(fresh);
  });

  it('waits for a peer while the item is open or its branch there is not seen landed', () => {
    expect(awaitsPeer(item())).toBe(true);
    expect(awaitsPeer(item({ closed_ms: NOW }))).toBe(true);
    const landed = { ahead: 0, dirty: false, landed: true, observed_ms: NOW };
    expect(awaitsPeer(item({ closed_ms: NOW, branch_seen: landed }))).toBe(false);
    expect(awaitsPeer(item({ closed_ms: NOW, branch: null }))).toBe(false);
  });
});

describe("a peer's refusal", () => {
  it("names the peer's own reason once, whichever transport carried it", () => {
    expect(peerReason('send', 'host: send: kid (w1:p2) has no inbox reader')).toBe(
      'kid (w1:p2) has no inbox reader',
    );
    expect(peerReason('send', 'send: kid (w1:p2) has no inbox reader')).toBe(
      'kid (w1:p2) has no inbox reader',
    );
    expect(peerReason('agent', 'host agent: the request on stdin is not JSON')).toBe(
      'the request on stdin is not JSON',
    );
    expect(peerReason('read', 'host: no agent or job "x" here')).toBe('no agent or job "x" here');
    expect(peerReason('read', 'readme: kept as is')).toBe('readme: kept as is');
  });
});
