/**
 * Personal-data retention (off by default; `--retention-days`): bookings that ended more than the
 * retention period ago lose their people's data by the same path as a buyer's erasure, scoped to
 * the booking (the person's newer bookings, account and note stay). Run by the sweep in batches of
 * short transactions; a watermark in the store remembers how far it got, so each booking is visited
 * once, whichever process sweeps.
 */
import { ERASED_BUYER, personOf } from '../domain/index.js';
import type { Store } from '../store/index.js';
import type { Business } from './business.js';
import type { Clock } from './core/clock.js';
import { outboxEvent, type OperationContext } from './core/context.js';
import type { IdSource } from './core/ids.js';
import { erasePersonEverywhere } from './admin/personal-data.js';

const WATERMARK = 'retention:personal_data_ended_before_ms';
const BATCH = 100;
const ROUNDS = 20;

/** Erase the people of bookings that ended before now - retentionMs; returns how many bookings were visited. */
export async function erasePastBookings(
  store: Store,
  biz: Business,
  clock: Clock,
  ids: IdSource,
  retentionMs: number,
): Promise<number> {
  let visited = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const n = await store.transaction(async (tx) => {
      const now = clock.now();
      const from = Number((await tx.kv.get(WATERMARK)) ?? 0);
      const rows = await tx.frontdesk.bookingsEnded(from, now - retentionMs, BATCH);
      const ctx: OperationContext = {
        tx,
        now,
        biz,
        ids,
        caller: { principal: 'business', profile: null, business: true, actor: 'retention' },
        issueCredential: async () => undefined,
        emit: (e) => void outboxEvent(e, ids, now),
      };
      for (const r of rows) {
        const rec = await tx.bookings.get(r.id);
        if (!rec) continue;
        for (const who of [rec.booking.buyer, rec.booking.recipient]) {
          const person = who && who.email !== ERASED_BUYER.email ? personOf(who.email, who.phone_number) : null;
          if (person) await erasePersonEverywhere(ctx, { person, bookingId: r.id });
        }
      }
      if (rows.length > 0) {
        const last = rows[rows.length - 1].end_ms;
        // A short batch read everything up to `last`; a full one may have left bookings that ended
        // in that same millisecond, read again next time (unless the whole batch ended then).
        await tx.kv.set(WATERMARK, String(rows.length < BATCH || last === from ? last + 1 : last));
      }
      return rows.length;
    });
    visited += n;
    if (n < BATCH) break;
  }
  return visited;
}
