/**
 * What several checks share: the business's "today" as the business reports it, finding free slots
 * (each used once, so checks never collide), booking and cancelling what the suite made, and
 * validating an answer against the official schema of its route.
 */
import { randomUUID } from 'node:crypto';
import { describeAnswer, messageCodes, type Authenticate, type RestAnswer } from '../../client/index.js';
import { expectThat, fail, skip, type CheckContext } from '../types.js';

export const BUYER = { first_name: 'Conformance', last_name: 'Suite', email: 'conformance@example.com' };

export interface Slot {
  id: string;
  service_id: string;
  start: string;
  end: string;
  [k: string]: unknown;
}

/** The business's capability keys (from its profile). */
export function capabilityKeys(ctx: CheckContext): string[] {
  return Object.keys(ctx.profile?.usp?.capabilities ?? {});
}

export function hasCapability(ctx: CheckContext, key: string): boolean {
  return capabilityKeys(ctx).includes(key);
}

export function requireCapability(ctx: CheckContext, key: string): void {
  if (!hasCapability(ctx, key)) skip(`the profile does not advertise ${key}`);
}

/** Every service of the catalog (first page of up to 100). */
export async function services(ctx: CheckContext): Promise<any[]> {
  const cached = ctx.facts.get('services') as any[] | undefined;
  if (cached) return cached;
  const a = await ctx.rest.post('/services/list', { pagination: { limit: 100 } });
  if (a.status !== 200 || !Array.isArray(a.body?.services)) fail(`POST /services/list: ${describeAnswer(a)}`);
  ctx.facts.set('services', a.body.services);
  return a.body.services;
}

/**
 * The business's current date, as it says it: a service's `availability_hint.generated_at` (the
 * business's clock), else the Date header of its answer. Never the suite's own clock alone.
 */
export async function businessNow(ctx: CheckContext): Promise<number> {
  const cached = ctx.facts.get('now') as number | undefined;
  if (cached !== undefined) return cached;
  const all = await services(ctx);
  const hinted = all.map((s) => Date.parse(s?.availability_hint?.generated_at ?? '')).filter((n) => Number.isFinite(n));
  let now = hinted.length ? Math.max(...hinted) : NaN;
  if (!Number.isFinite(now)) {
    const a = await ctx.rest.send('/.well-known/usp', { profile: null });
    now = Date.parse(a.headers.get('date') ?? '') || Date.now();
  }
  ctx.facts.set('now', now);
  return now;
}

export function isoDate(ms: number, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(ms),
  );
}

export function businessZone(ctx: CheckContext): string {
  return ctx.profile?.usp?.business?.timezone ?? 'UTC';
}

/** Available slots of a service, from `days` days ahead for a few days (state available). */
export async function slotsOf(ctx: CheckContext, serviceId: string, daysAhead = 3, span = 3): Promise<Slot[]> {
  const now = await businessNow(ctx);
  const zone = businessZone(ctx);
  const start_date = isoDate(now + daysAhead * 86_400_000, zone);
  const end_date = isoDate(now + (daysAhead + span - 1) * 86_400_000, zone);
  const a = await ctx.rest.post('/availability/query', { service_id: serviceId, start_date, end_date });
  if (a.status !== 200) fail(`POST /availability/query for ${serviceId}: ${describeAnswer(a)}`);
  const slots = (a.body?.slots ?? []) as Slot[];
  return slots.filter((s) => !s.state || s.state === 'available');
}

/**
 * A free slot no other check has used, of an active appointment service (one seat: the simplest
 * slot to reason about), or of `type` when given.
 */
export async function freshSlot(ctx: CheckContext, type = 'appointment'): Promise<Slot> {
  const used = (ctx.facts.get('used-slots') as Set<string> | undefined) ?? new Set<string>();
  ctx.facts.set('used-slots', used);
  const candidates = (await services(ctx)).filter((s) => s.type === type && (s.status ?? 'active') === 'active');
  if (candidates.length === 0) skip(`the catalog has no active ${type} service`);
  for (const svc of candidates) {
    for (const ahead of [3, 6, 9]) {
      const slots = await slotsOf(ctx, svc.id, ahead);
      const free = slots.find((s) => !used.has(s.id) && !overlapsUsed(ctx, s));
      if (free) {
        used.add(free.id);
        markUsed(ctx, free);
        return { ...free, service_id: free.service_id ?? svc.id };
      }
    }
  }
  return skip(`no free ${type} slot found in the next weeks`);
}

function overlapsUsed(ctx: CheckContext, s: Slot): boolean {
  const spans = (ctx.facts.get('used-spans') as Array<[string, number, number]> | undefined) ?? [];
  const a = Date.parse(s.start);
  const b = Date.parse(s.end);
  return spans.some(([svc, x, y]) => svc === s.service_id && a < y + 3_600_000 && x - 3_600_000 < b);
}

function markUsed(ctx: CheckContext, s: Slot): void {
  const spans = (ctx.facts.get('used-spans') as Array<[string, number, number]> | undefined) ?? [];
  spans.push([s.service_id, Date.parse(s.start), Date.parse(s.end)]);
  ctx.facts.set('used-spans', spans);
}

/** Create a booking on `slot`; registers its cancellation as a cleanup. */
export async function book(
  ctx: CheckContext,
  slot: Slot,
  extra: Record<string, unknown> = {},
  key = randomUUID(),
): Promise<{ answer: RestAnswer; booking: any }> {
  const answer = await ctx.rest.post(
    '/bookings',
    { service_id: slot.service_id, slot_id: slot.id, buyer: BUYER, ...extra },
    { idempotencyKey: key },
  );
  const booking = answer.body?.booking;
  const credential = answer.body?.booking_scoped_credential?.value;
  if (booking?.id && typeof credential === 'string') ctx.facts.set(`credential:${booking.id}`, credential);
  // Undone later with the credentials that made it (the suite's platform key changes per check).
  const auth = ctx.rest.authenticate;
  if (booking?.id) ctx.cleanups.push(() => cancel(ctx, booking.id, auth).then(() => undefined));
  return { answer, booking };
}

export async function bookOrFail(ctx: CheckContext, slot: Slot): Promise<any> {
  const { answer, booking } = await book(ctx, slot);
  if (!booking?.id) fail(`could not book a free slot (${slot.id}): ${describeAnswer(answer)}`);
  return booking;
}

export function cancel(ctx: CheckContext, bookingId: string, auth?: Authenticate): Promise<RestAnswer> {
  return ctx.rest.post(
    `/bookings/${encodeURIComponent(bookingId)}/cancel`,
    { reason: 'conformance suite cleanup' },
    { idempotencyKey: randomUUID(), auth },
  );
}

export async function hold(ctx: CheckContext, slot: Slot, spots?: number): Promise<RestAnswer> {
  const a = await ctx.rest.post('/availability/holds', {
    service_id: slot.service_id,
    slot_id: slot.id,
    ...(spots ? { spots } : {}),
  });
  const id = a.body?.hold?.id;
  const auth = ctx.rest.authenticate;
  if (id)
    ctx.cleanups.push(() =>
      ctx.rest.send(`/availability/holds/${encodeURIComponent(id)}`, { method: 'DELETE', auth }).then(() => undefined),
    );
  return a;
}

/** FAIL unless the answer is valid against the OpenAPI schema for its route and status (no-op without the artifacts). */
export function expectRestSchema(ctx: CheckContext, route: string, method: string, a: RestAnswer): void {
  if (!ctx.spec) return;
  const v = ctx.spec.restAnswer(route, method, a.status);
  if (!v) return;
  const errors = v(a.body);
  if (errors)
    fail(`${method} ${route} answer (HTTP ${a.status}) is not valid against the official OpenAPI schema: ${errors}`);
}

export function expectOutcome(a: RestAnswer, code: string, what: string): void {
  expectThat(
    a.status === 200 && messageCodes(a.body).includes(code),
    `${what}: expected HTTP 200 with messages [${code}], got ${describeAnswer(a)}`,
  );
}

/** MCP arguments with the suite's profile in `_meta.usp`. */
export function mcpArgs(
  ctx: CheckContext,
  args: Record<string, unknown>,
  usp: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...args, _meta: { usp: { profile: ctx.rest.profile, ...usp } } };
}

/**
 * A read of a booking id the business never issued was served, past authentication and
 * negotiation: the 404 problem `booking-not-found` (newer text 9.4.1, 9.4.3), or for a platform of
 * the pinned text HTTP 200 with a `booking_not_found` message.
 */
export function servedUnknownBooking(a: { status: number; body?: any }): boolean {
  return (
    (a.status === 404 && a.body?.code === 'booking_not_found') ||
    (a.status === 200 && messageCodes(a.body).includes('booking_not_found'))
  );
}
