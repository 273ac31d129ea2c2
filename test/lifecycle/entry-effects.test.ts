/**
 * The entry-effect tables of the hold, waitlist-entry and dispute lifecycles, move by move: every
 * legal move makes exactly the store calls and events that the row of the status it enters lists,
 * and every illegal move is refused with its lifecycle's code and changes nothing. The steps run
 * against a recording transaction, so what a row's effect means is spelled once, here.
 */
import { describe, expect, test } from 'vitest';
import {
  DISPUTE_ENTRY_EFFECTS,
  DISPUTE_TRANSITIONS,
  HOLD_ENTRY_EFFECTS,
  HOLD_TRANSITIONS,
  WAITLIST_ENTRY_EFFECTS,
  WAITLIST_TRANSITIONS,
  type BookingRecord,
  type DisputeMove,
  type DisputeStatus,
  type HoldMove,
  type HoldRecord,
  type HoldStatus,
  type WaitlistMove,
  type WaitlistRecord,
  type WaitlistStatus,
} from '../../src/domain/index.js';
import type { OperationContext } from '../../src/operations/core/context.js';
import { ProtocolError } from '../../src/operations/core/errors.js';
import { enterDisputeStatus, openDisputeOn } from '../../src/operations/payments/disputes.js';
import { RefusedMove } from '../../src/operations/core/invalid-transition.js';
import { enterEntryStatus, enterHoldStatus } from '../../src/operations/waitlist/offers.js';
import { TEST_NOW } from '../support/time.js';

const HOUR = 3_600_000;

interface Recording {
  ctx: OperationContext;
  calls: string[];
  events: string[];
}

/** A context whose transaction records every repository call; `holds.get` finds `offerHold`, every line is empty. */
function recordingContext(offerHold?: HoldRecord): Recording {
  const calls: string[] = [];
  const events: string[] = [];
  const answers: Record<string, unknown> = { 'holds.get': offerHold ?? null, 'waitlist.byService': [] };
  const tx = new Proxy(
    {},
    {
      get: (_t, repo: string) =>
        new Proxy(
          {},
          {
            get: (_r, method: string) => async () => {
              calls.push(`${repo}.${method}`);
              return answers[`${repo}.${method}`];
            },
          },
        ),
    },
  );
  let n = 0;
  const service = { id: 'svc_class', capacity: { max: 1, waitlist: true } };
  const ctx = {
    tx,
    now: TEST_NOW,
    ids: { next: (prefix: string) => `${prefix}_${++n}` },
    biz: {
      services: new Map([[service.id, service]]),
      zone: 'UTC',
      def: { settings: { waitlist_offer_ttl_seconds: 900 } },
    },
    emit: (e: { event: string }) => events.push(e.event),
  } as unknown as OperationContext;
  return { ctx, calls, events };
}

function holdIn(status: HoldStatus): HoldRecord {
  const start = TEST_NOW + 24 * HOUR;
  return {
    hold: {
      id: 'hld_1',
      slot_id: 'slot_1',
      service_id: 'svc_class',
      spots: 1,
      expires_at: new Date(TEST_NOW + HOUR).toISOString(),
      status,
    },
    priv: {
      principal: 'platform',
      profile: null,
      slot_key: 'k',
      start_ms: start,
      end_ms: start + HOUR,
      resource_ids: ['res_room'],
      expires_at_ms: TEST_NOW + HOUR,
    },
  } as unknown as HoldRecord;
}

function entryIn(status: WaitlistStatus): WaitlistRecord {
  return {
    entry: {
      id: 'wle_1',
      service_id: 'svc_class',
      buyer: { name: 'Ada' },
      status,
      position: 1,
      created_at: new Date(TEST_NOW).toISOString(),
      revision: 'rev_0',
      ...(status === 'offered' ? { offer_expires_at: new Date(TEST_NOW + HOUR).toISOString() } : {}),
    },
    priv: {
      principal: 'platform',
      profile: null,
      created_ms: TEST_NOW,
      ...(status === 'offered' ? { offer_hold_id: 'hld_1', offer_expires_ms: TEST_NOW + HOUR } : {}),
    },
  } as unknown as WaitlistRecord;
}

function bookingWithDispute(status: DisputeStatus): BookingRecord {
  return {
    booking: {
      id: 'bkg_1',
      status: 'confirmed',
      revision: 'rev_0',
      payment: { status: 'paid', amount_due: 0, currency: 'USD' },
      dispute: { status, reason: 'quality_issue', opened_at: new Date(TEST_NOW).toISOString() },
    },
    priv: { principal: 'platform', profile: null, amount_paid: 1000 },
  } as unknown as BookingRecord;
}

/** Every (from, move) pair of a map, legal or not. */
function everyMove<S extends string, M extends string>(
  map: Readonly<Record<S, Partial<Record<M, S>>>>,
  moves: readonly M[],
): Array<[S, M, S | undefined]> {
  return (Object.keys(map) as S[]).flatMap((from) => moves.map((m): [S, M, S | undefined] => [from, m, map[from][m]]));
}

async function refusal(run: () => Promise<unknown>): Promise<ProtocolError> {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}

/** A hold move the map forbids is the business outcome `invalid_transition`, thrown so the pipeline rolls back. */
async function refusedMove(run: () => Promise<unknown>): Promise<RefusedMove> {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RefusedMove);
  return err as RefusedMove;
}

/** The calls a freed hold makes: the write, its credential and claims gone, the place offered to the line. */
const HOLD_FREED = ['holds.update', 'security.revokeCredentials', 'claims.removeOwner', 'waitlist.byService'];

describe('a hold entering a status does what its row says', () => {
  const moves: HoldMove[] = ['release', 'expire', 'convert'];
  const expected = (to: HoldStatus): string[] => {
    const fx = HOLD_ENTRY_EFFECTS[to];
    if (fx.claims === 'free') return HOLD_FREED;
    if (fx.claims === 'transfer') return ['claims.transfer', 'holds.update'];
    return ['holds.update'];
  };
  for (const [from, m, to] of everyMove(HOLD_TRANSITIONS, moves)) {
    if (to) {
      test(`${from} --${m}--> ${to}: ${expected(to).join(', ')}`, async () => {
        const r = recordingContext();
        const hold = holdIn(from);
        await enterHoldStatus(r.ctx, hold, m, { bookingId: 'bkg_1', expiresMs: null });
        expect([hold.hold.status, r.calls, r.events]).toEqual([to, expected(to), []]);
        expect(hold.priv.booking_id).toBe(HOLD_ENTRY_EFFECTS[to].claims === 'transfer' ? 'bkg_1' : undefined);
      });
    } else {
      test(`${from} --${m}--> refused with invalid_transition and nothing written`, async () => {
        const r = recordingContext();
        const hold = holdIn(from);
        const err = await refusedMove(() => enterHoldStatus(r.ctx, hold, m, { bookingId: 'bkg_1', expiresMs: null }));
        expect([err.outcome.code, err.currentStatus, err.allowedMoves, (err.data.hold as any)?.status]).toEqual([
          'invalid_transition',
          from,
          Object.keys(HOLD_TRANSITIONS[from]),
          from,
        ]);
        expect([hold.hold.status, r.calls, r.events]).toEqual([from, [], []]);
      });
    }
  }
});

describe('a waitlist entry entering a status does what its row says', () => {
  const moves: WaitlistMove[] = ['offer', 'accept', 'decline', 'expire', 'leave'];
  const expected = (to: WaitlistStatus): string[] => {
    const fx = WAITLIST_ENTRY_EFFECTS[to];
    return [
      'waitlist.update',
      ...(fx.leavesLine ? ['security.revokeCredentials', 'waitlist.byService'] : []),
      // A closed offer's hold is read and ended, which frees its place.
      ...(fx.offer === 'close' ? ['holds.get', ...HOLD_FREED] : []),
    ];
  };
  for (const [from, m, to] of everyMove(WAITLIST_TRANSITIONS, moves)) {
    if (to) {
      const fx = WAITLIST_ENTRY_EFFECTS[to];
      test(`${from} --${m}--> ${to}: ${fx.event ?? 'no event'}, ${expected(to).join(', ')}`, async () => {
        const offerHold = holdIn('active');
        const r = recordingContext(offerHold);
        const rec = entryIn(from);
        await enterEntryStatus(r.ctx, rec, m);
        expect([rec.entry.status, r.calls, r.events]).toEqual([to, expected(to), fx.event ? [fx.event] : []]);
        expect(rec.entry.revision).not.toBe('rev_0');
        if (fx.offer !== 'keep')
          expect([rec.entry.offer_expires_at, rec.priv.offer_expires_ms]).toEqual([undefined, undefined]);
        if (fx.offer === 'close') expect(offerHold.hold.status).toBe(to === 'expired' ? 'expired' : 'released');
      });
    } else {
      test(`${from} --${m}--> refused with entry_state_conflict and nothing written`, async () => {
        const r = recordingContext(holdIn('active'));
        const rec = entryIn(from);
        const err = await refusal(() => enterEntryStatus(r.ctx, rec, m));
        expect([err.detailCode, err.extra?.current_status]).toEqual(['entry_state_conflict', from]);
        expect([rec.entry.status, rec.entry.revision, r.calls, r.events]).toEqual([from, 'rev_0', [], []]);
      });
    }
  }
});

describe('a dispute entering a status does what its row says', () => {
  const moves: DisputeMove[] = ['review', 'resolve_buyer', 'resolve_business'];
  for (const [from, m, to] of everyMove(DISPUTE_TRANSITIONS, moves)) {
    if (to) {
      const fx = DISPUTE_ENTRY_EFFECTS[to];
      const events = [...(fx.refund ? ['booking.refund_issued'] : []), ...(fx.event ? [fx.event] : [])];
      test(`${from} --${m}--> ${to}: ${events.join(', ') || 'no event'}`, async () => {
        const r = recordingContext();
        const rec = bookingWithDispute(from);
        enterDisputeStatus(r.ctx, rec, m, 400);
        const d = rec.booking.dispute!;
        expect([d.status, r.events, r.calls, rec.booking.status]).toEqual([to, events, [], 'confirmed']);
        expect(d.resolved_at !== undefined).toBe(fx.resolved);
        expect([rec.priv.amount_paid, rec.booking.payment!.status]).toEqual(
          fx.refund ? [600, 'partially_refunded'] : [1000, 'paid'],
        );
        expect(rec.booking.revision).not.toBe('rev_0');
      });
    } else {
      test(`${from} --${m}--> refused with dispute_state_conflict and nothing changed`, async () => {
        const r = recordingContext();
        const rec = bookingWithDispute(from);
        const before = structuredClone(rec);
        const err = await refusal(async () => enterDisputeStatus(r.ctx, rec, m, 400));
        expect([err.detailCode, err.extra?.dispute_status]).toEqual(['dispute_state_conflict', from]);
        expect([rec, r.events]).toEqual([before, []]);
      });
    }
  }

  test('a new dispute enters opened: booking.dispute_opened, nothing refunded', async () => {
    const r = recordingContext();
    const rec = bookingWithDispute('opened');
    delete rec.booking.dispute;
    openDisputeOn(r.ctx, rec, 'duplicate');
    expect([
      (rec.booking.dispute as { status: DisputeStatus } | undefined)?.status,
      r.events,
      rec.priv.amount_paid,
    ]).toEqual(['opened', [DISPUTE_ENTRY_EFFECTS.opened.event], 1000]);
  });
});
