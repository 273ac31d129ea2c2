/**
 * The checks that make something: holds (4.2), races on one slot (exactly one wins), idempotent
 * replay and conflict (9.1.1), conditional writes (5.6), the booking state machine with an illegal
 * move (5.1, 5.3.6) and the free cancellation window (5.3.5). Everything made is cancelled or
 * released by the suite's cleanups.
 */
import { randomUUID } from 'node:crypto';
import { describeAnswer, messageCodes } from '../../client/index.js';
import { expectThat, skip, type Check } from '../types.js';
import {
  book,
  bookOrFail,
  cancel,
  expectOutcome,
  expectRestSchema,
  freshSlot,
  hold,
  requireCapability,
  services,
  slotsOf,
} from './support.js';

const AVAIL = 'dev.usp-protocol.services.availability';
const BOOKINGS = 'dev.usp-protocol.services.bookings';

function holdsFlag(ctx: Parameters<Check['run']>[0]): boolean {
  const entry = (ctx.profile?.usp?.capabilities?.[AVAIL] ?? [])[0];
  return entry?.holds === true;
}

export const holdChecks: Check[] = [
  {
    id: 'holds.exclusive',
    section: 'holds',
    clause: '4.2',
    level: 'MUST',
    title: 'a second hold on a held appointment slot answers slot_unavailable; released, the slot can be held again',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      if (!holdsFlag(ctx)) skip('the availability capability does not declare holds');
      const slot = await freshSlot(ctx);
      const first = await hold(ctx, slot);
      expectThat(first.status === 201 && first.body?.hold?.id, `first hold: ${describeAnswer(first)}`);
      expectRestSchema(ctx, '/availability/holds', 'post', first);
      const second = await hold(ctx, slot);
      expectOutcome(second, 'slot_unavailable', 'second hold on the same slot');
      const released = await ctx.rest.send(`/availability/holds/${encodeURIComponent(first.body.hold.id)}`, {
        method: 'DELETE',
      });
      expectThat(released.status === 200 || released.status === 204, `release: ${describeAnswer(released)}`);
      const again = await hold(ctx, slot);
      expectThat(again.status === 201 && again.body?.hold?.id, `hold after release: ${describeAnswer(again)}`);
    },
  },
  {
    id: 'holds.group-over-capacity',
    section: 'holds',
    clause: '4.2',
    level: 'MUST',
    title: 'a group hold for more spots than remain answers slot_unavailable',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      if (!holdsFlag(ctx)) skip('the availability capability does not declare holds');
      const slot = await freshSlot(ctx, 'group');
      const remaining = Number((slot as any).remaining_capacity ?? (slot as any).capacity?.remaining ?? NaN);
      const svc = (await services(ctx)).find((s) => s.id === slot.service_id);
      const max = Number.isFinite(remaining) ? remaining : Number(svc?.capacity?.max ?? NaN);
      if (!Number.isFinite(max)) skip('neither the slot nor the service states its capacity');
      const a = await hold(ctx, slot, max + 1);
      expectOutcome(a, 'slot_unavailable', `hold for ${max + 1} spots where ${max} remain`);
    },
  },
  {
    id: 'holds.suspended-service',
    section: 'holds',
    clause: '3.13',
    level: 'MUST',
    title: 'a suspended service offers no available slots and accepts no hold',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      // The list shows active services only; the feed carries every service with its status.
      const feed = await ctx.rest.send('/services/feed?limit=500');
      const fromFeed = ((feed.body?.items ?? []) as any[]).map((i) => i?.data).filter((d) => d?.status === 'suspended');
      const suspended = (await services(ctx)).find((s) => s.status === 'suspended') ?? fromFeed[0];
      if (!suspended) skip('neither the list nor the feed shows a suspended service');
      const slots = await slotsOf(ctx, suspended.id);
      expectThat(slots.length === 0, `the suspended service ${suspended.id} answered ${slots.length} available slots`);
      const a = await ctx.rest.post('/availability/holds', {
        service_id: suspended.id,
        slot_id: 'slot_conformance_any',
      });
      expectThat(!a.body?.hold?.id, `a hold on the suspended service ${suspended.id} was accepted`);
    },
  },
];

export const raceChecks: Check[] = [
  {
    id: 'races.concurrent-holds',
    section: 'races',
    clause: '4.2',
    level: 'MUST',
    title: 'concurrent holds on one appointment slot: exactly one wins, the others answer slot_unavailable',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      if (!holdsFlag(ctx)) skip('the availability capability does not declare holds');
      const slot = await freshSlot(ctx);
      const answers = await Promise.all(Array.from({ length: ctx.options.raceWidth }, () => hold(ctx, slot)));
      const won = answers.filter((a) => a.body?.hold?.id);
      const lost = answers.filter((a) => messageCodes(a.body).includes('slot_unavailable'));
      expectThat(won.length === 1, `${won.length} of ${answers.length} concurrent holds on one slot succeeded`);
      expectThat(
        lost.length === answers.length - 1,
        `the losers answered ${answers
          .filter((a) => !a.body?.hold?.id)
          .map(describeAnswer)
          .join('; ')}`,
      );
    },
  },
  {
    id: 'races.concurrent-creates',
    section: 'races',
    clause: '5.3.1',
    level: 'MUST',
    title: 'concurrent bookings of one appointment slot: exactly one is booked',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const made = await Promise.all(Array.from({ length: ctx.options.raceWidth }, () => book(ctx, slot)));
      const won = made.filter((m) => m.booking?.id);
      expectThat(won.length === 1, `${won.length} of ${made.length} concurrent bookings of one slot succeeded`);
      const bad = made.filter((m) => !m.booking?.id && !messageCodes(m.answer.body).includes('slot_unavailable'));
      expectThat(
        bad.length === 0,
        `a loser did not answer slot_unavailable: ${bad.map((m) => describeAnswer(m.answer)).join('; ')}`,
      );
    },
  },
];

export const idempotencyChecks: Check[] = [
  {
    id: 'idempotency.replay',
    section: 'idempotency',
    clause: '9.1.1',
    level: 'MUST',
    title: 'the same Idempotency-Key with the same body replays the first answer (one booking)',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const key = randomUUID();
      const first = await book(ctx, slot, {}, key);
      expectThat(first.booking?.id, `booking: ${describeAnswer(first.answer)}`);
      const again = await book(ctx, slot, {}, key);
      expectThat(
        again.booking?.id === first.booking.id,
        `the replay answered ${again.booking?.id ? `another booking ${again.booking.id}` : describeAnswer(again.answer)}`,
      );
    },
  },
  {
    id: 'idempotency.conflict',
    section: 'idempotency',
    clause: '9.1.1',
    level: 'MUST',
    title: 'the same Idempotency-Key with a different body is refused (409), not applied',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const other = await freshSlot(ctx);
      const key = randomUUID();
      const first = await book(ctx, slot, {}, key);
      expectThat(first.booking?.id, `booking: ${describeAnswer(first.answer)}`);
      const clash = await book(ctx, other, {}, key);
      expectThat(
        !clash.booking?.id || clash.booking.id === first.booking.id,
        `a different body under a used key made booking ${clash.booking?.id}`,
      );
      expectThat(
        clash.answer.status === 409,
        `a different body under a used key: expected 409, got ${describeAnswer(clash.answer)}`,
      );
    },
  },
];

export const conditionalChecks: Check[] = [
  {
    id: 'conditional.if-match',
    section: 'conditional',
    clause: '5.6',
    level: 'MUST',
    title:
      'an update with a stale If-Match answers 412 revision_mismatch and changes nothing; the current revision is accepted',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const booking = await bookOrFail(ctx, await freshSlot(ctx));
      expectThat(typeof booking.revision === 'string', 'the booking carries no revision');
      const path = `/bookings/${encodeURIComponent(booking.id)}`;
      const stale = await ctx.rest.send(path, {
        method: 'PUT',
        body: { notes: 'stale write' },
        ifMatch: '"rev_conformance_stale"',
      });
      expectThat(stale.status === 412, `a stale If-Match: expected 412, got ${describeAnswer(stale)}`);
      const after = await ctx.rest.send(path);
      expectThat(after.body?.booking?.revision === booking.revision, 'the stale write changed the booking');
      const fresh = await ctx.rest.send(path, {
        method: 'PUT',
        body: { notes: 'conformance' },
        ifMatch: `"${booking.revision}"`,
      });
      expectThat(fresh.status === 200 && fresh.body?.booking, `the current revision: ${describeAnswer(fresh)}`);
    },
  },
];

export const lifecycleChecks: Check[] = [
  {
    id: 'lifecycle.illegal-move',
    section: 'lifecycle',
    clause: '5.1, 5.3.6',
    level: 'MUST',
    title: 'a canceled booking cannot be rescheduled (409) and stays canceled',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const target = await freshSlot(ctx);
      const booking = await bookOrFail(ctx, slot);
      const c = await cancel(ctx, booking.id);
      expectThat(c.body?.booking?.status === 'canceled', `cancel: ${describeAnswer(c)}`);
      const r = await ctx.rest.post(
        `/bookings/${encodeURIComponent(booking.id)}/reschedule`,
        { slot_id: target.id },
        { idempotencyKey: randomUUID() },
      );
      expectThat(
        r.status === 409 ||
          (r.status === 200 && messageCodes(r.body).length > 0 && !r.body?.booking?.slot?.id?.includes(target.id)),
        `reschedule of a canceled booking: ${describeAnswer(r)}`,
      );
      const after = await ctx.rest.send(`/bookings/${encodeURIComponent(booking.id)}`);
      expectThat(
        after.body?.booking?.status === 'canceled',
        `after the refused move the booking is ${after.body?.booking?.status}`,
      );
    },
  },
  {
    id: 'lifecycle.free-cancellation-window',
    section: 'lifecycle',
    clause: '5.3.5',
    level: 'MUST',
    title: 'a booking canceled before free_cancellation_until is canceled without a fee',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const svc = (await services(ctx)).find((s) => s.id === slot.service_id);
      const policy = svc?.policies?.cancellation;
      if (!policy?.allowed) skip(`${slot.service_id} does not allow cancellation`);
      const window = /^PT(\d+)H$/.exec(policy.free_cancellation_until ?? '');
      if (!window)
        skip(
          `free_cancellation_until ${JSON.stringify(policy.free_cancellation_until)} is not a whole number of hours`,
        );
      const booking = await bookOrFail(ctx, slot);
      if (Date.parse(slot.start) - Date.now() <= Number(window![1]) * 3_600_000 + 600_000)
        skip('the free slot found is inside the late window');
      const c = await cancel(ctx, booking.id);
      expectThat(c.body?.booking?.status === 'canceled', `cancel: ${describeAnswer(c)}`);
      const fee = c.body.booking.cancellation?.fee ?? 0;
      expectThat(fee === 0, `a cancellation inside the free window charged ${fee}`);
    },
  },
];
