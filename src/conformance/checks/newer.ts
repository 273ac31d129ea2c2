/**
 * Checks of what the newer protocol text changed (still under version 2026-08-20): a move the
 * permitted-transitions table forbids is the business outcome `invalid_transition` (5.1.1, 9.4.1,
 * 9.4.2), an unknown MCP tool carries no `data.code` (9.2.1), a 405 is RFC 9457 `about:blank` with
 * `Allow` (9.1, 9.4.3), a paid service the business offers can be paid for (3.13, 8.5), and an
 * unknown id in a request path is a 404 problem naming what is missing (3.12.3, 8.5.3, 9.4.1, 9.4.3).
 */
import { randomUUID } from 'node:crypto';
import { createPopKey, dpopProof } from '../../client/index.js';
import { withVariant } from './protocol.js';
import { describeAnswer, messageCodes, type RestAnswer } from '../../client/index.js';
import { expectThat, fail, skip, type Check, type CheckContext } from '../types.js';
import {
  book,
  bookOrFail,
  businessNow,
  businessZone,
  cancel,
  freshSlot,
  hasCapability,
  hold,
  isoDate,
  mcpArgs,
  requireCapability,
  services,
  slotsOf,
} from './support.js';

const BOOKINGS = 'dev.usp-protocol.services.bookings';
const CATALOG = 'dev.usp-protocol.services.catalog';
const WAITLIST = 'dev.usp-protocol.services.waitlist';

/**
 * The business outcome codes the text defines (9.4.2, the catalog's 3.12.4 and 3.13, the pinned
 * `validation_error` and `booking_not_found`): a refusal outside these is a code a platform cannot
 * know.
 */
export const SPEC_OUTCOMES = new Set([
  'slot_unavailable',
  'hold_expired',
  'booking_window_violated',
  'capacity_exceeded',
  'reschedule_limit_reached',
  'cancellation_not_allowed',
  'invalid_transition',
  'payment_required',
  'payment_expired',
  'payment_amount_mismatch',
  'actions_pending',
  'price_mismatch',
  'capabilities_incompatible',
  'validation_error',
  'booking_not_found',
  'service_unresolved',
]);

/** The protocol errors of the newer text's 9.4.3 table a missing thing is named by: never a business outcome's code (9.4.1). */
const NOT_FOUND_ERRORS = new Set(['service_not_found', 'booking_not_found', 'entry_not_found']);

/**
 * FAIL unless `a` is the newer text's answer for an unknown id in the path: 404 with the problem type
 * of `code` (e.g. `booking-not-found`), never HTTP 200 with a message.
 */
function expectNotFound(a: RestAnswer, what: string, code: string): void {
  const type = `https://usp-protocol.dev/errors/${code.replace(/_/g, '-')}`;
  expectThat(
    a.status !== 200,
    `${what}: HTTP 200${messageCodes(a.body).length ? ` with messages [${messageCodes(a.body).join(', ')}]` : ''} in place of a 404`,
  );
  expectThat(a.status === 404 && a.body?.type === type, `${what}: expected 404 ${type}, got ${describeAnswer(a)}`);
}

/** FAIL unless an MCP tool call answered JSON-RPC -32602 with `data.code` `code` (the newer text's 9.4.3 row). */
function expectMcpNotFound(m: { result?: any; error?: any }, what: string, code: string): void {
  expectThat(
    m.error,
    `MCP ${what}: a result${messageCodes(m.result?.structuredContent).length ? ` with messages [${messageCodes(m.result?.structuredContent).join(', ')}]` : ''}, not a JSON-RPC error`,
  );
  expectThat(
    m.error.code === -32602 && m.error.data?.code === code,
    `MCP ${what}: expected -32602 with data.code ${code}, got ${m.error.code} ${m.error.data?.code ?? ''}`,
  );
}

/** FAIL unless `a` is HTTP 200 with `invalid_transition` in messages[], no problem, the booking still `status`. */
function expectRefusedMove(a: RestAnswer, what: string, status: string): void {
  expectThat(
    a.status === 200 && messageCodes(a.body).includes('invalid_transition') && a.body?.type === undefined,
    `${what}: expected HTTP 200 with messages [invalid_transition] (a business outcome), got ${describeAnswer(a)}`,
  );
  const now = a.body?.booking?.status;
  expectThat(now === undefined || now === status, `${what}: the answer's booking is ${now}, it was ${status}`);
}

const requireMcp = (ctx: CheckContext) => {
  if (!ctx.mcp) skip('no MCP binding advertised and no --stdio command');
  return ctx.mcp!;
};

/** A service is paid online before the appointment (at booking, or a deposit). */
const paidOnline = (s: any) => s?.policies?.requires_payment === true && s?.policies?.payment_timing !== 'at_service';

export const newerTextChecks: Check[] = [
  {
    id: 'lifecycle.invalid-transition',
    section: 'lifecycle',
    clause: '5.1.1, 9.4.1, 9.4.2 (newer)',
    level: 'MUST',
    title:
      'every "No" cell of the permitted-transitions table a platform can reach (confirm-payment from confirmed; cancel, reschedule, confirm-payment and update from canceled) answers HTTP 200 with invalid_transition in messages[], on MCP a result, and changes nothing',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const target = await freshSlot(ctx);
      const booking = await bookOrFail(ctx, slot);
      const path = `/bookings/${encodeURIComponent(booking.id)}`;
      const currency = ctx.profile?.usp?.business?.currency ?? 'USD';
      const paid = {
        payment_result: {
          status: 'paid',
          transaction_id: `txn_conformance_${randomUUID().slice(0, 8)}`,
          amount_paid: 0,
          currency,
        },
      };
      const key = () => ({ idempotencyKey: randomUUID() });
      if (booking.status === 'confirmed') {
        expectRefusedMove(
          await ctx.rest.post(`${path}/confirm-payment`, paid, key()),
          'confirm-payment on a confirmed booking',
          'confirmed',
        );
      }
      const c = await cancel(ctx, booking.id);
      expectThat(c.body?.booking?.status === 'canceled', `cancel: ${describeAnswer(c)}`);
      const cells: Array<[string, () => Promise<RestAnswer>]> = [
        ['cancel', () => ctx.rest.post(`${path}/cancel`, { reason: 'conformance: again' }, key())],
        ['reschedule', () => ctx.rest.post(`${path}/reschedule`, { slot_id: target.id }, key())],
        ['confirm-payment', () => ctx.rest.post(`${path}/confirm-payment`, paid, key())],
        ['update', () => ctx.rest.send(path, { method: 'PUT', body: { notes: 'conformance: too late' }, ...key() })],
      ];
      for (const [move, send] of cells) expectRefusedMove(await send(), `${move} on a canceled booking`, 'canceled');
      const after = await ctx.rest.send(path);
      expectThat(
        after.body?.booking?.status === 'canceled',
        `after the refused moves the booking is ${after.body?.booking?.status}`,
      );
      if (ctx.mcp && ctx.sandbox) {
        const m = await ctx.mcp.call('usp_bookings_cancel', mcpArgs(ctx, { booking_id: booking.id }));
        expectThat(
          !m.error,
          `MCP cancel of a canceled booking: JSON-RPC error ${m.error?.code} ${m.error?.data?.code ?? ''} (a business outcome is a result)`,
        );
        expectThat(
          messageCodes(m.result?.structuredContent).includes('invalid_transition'),
          'MCP cancel of a canceled booking: no invalid_transition in messages[]',
        );
      }
    },
  },
  {
    id: 'errors.mcp-unknown-tool-no-code',
    section: 'errors',
    clause: '9.2.1 (newer)',
    level: 'MUST',
    title: 'an unknown tool is a JSON-RPC error with no data.code (the only one), never -32603',
    async run(ctx) {
      const mcp = requireMcp(ctx);
      const a = await mcp.call('usp_conformance_no_such_tool', mcpArgs(ctx, {}));
      expectThat(a.error, 'an unknown tool answered a result');
      expectThat(a.error!.code !== -32603, 'an unknown tool answered -32603 (a transient code)');
      expectThat(
        a.error!.data?.code === undefined,
        `an unknown tool carries data.code ${JSON.stringify(a.error!.data?.code)}`,
      );
      return a.error!.code === -32602
        ? undefined
        : `no data.code; the code is ${a.error!.code} (the text recommends -32602)`;
    },
  },
  {
    id: 'errors.rest-405',
    section: 'errors',
    clause: '9.1, 9.4.3 (newer)',
    level: 'MUST',
    title:
      'a method a USP route does not define answers 405 about:blank with an Allow header, and no USP-minted type or code',
    async run(ctx) {
      requireCapability(ctx, CATALOG);
      const a = await ctx.rest.send('/services/list', { method: 'DELETE' });
      expectThat(a.status === 405, `DELETE /services/list: expected 405, got ${describeAnswer(a)}`);
      expectThat(a.headers.get('allow'), 'the 405 has no Allow header');
      const type = a.body?.type ?? 'about:blank';
      expectThat(type === 'about:blank', `the 405 problem type is ${type}, not about:blank`);
      expectThat(a.body?.code === undefined, `the 405 carries a USP code ${JSON.stringify(a.body?.code)}`);
    },
  },
  {
    id: 'errors.path-not-found',
    section: 'errors',
    clause: '3.12.3, 9.4.1, 9.4.3, 11.1.6 (newer)',
    level: 'MUST',
    title:
      'an unknown id in a request path (a service, a booking, a waitlist entry) is a 404 problem naming what is missing (service-not-found, booking-not-found, entry-not-found), never HTTP 200 with a message; on MCP -32602 with that data.code',
    async run(ctx) {
      requireCapability(ctx, CATALOG);
      const unknown = 'conformance_unknown_id';
      expectNotFound(await ctx.rest.send(`/services/${unknown}`), `GET /services/${unknown}`, 'service_not_found');
      const checked = ['service'];
      if (hasCapability(ctx, BOOKINGS)) {
        expectNotFound(await ctx.rest.send(`/bookings/${unknown}`), `GET /bookings/${unknown}`, 'booking_not_found');
        checked.push('booking');
      }
      if (hasCapability(ctx, WAITLIST)) {
        expectNotFound(await ctx.rest.send(`/waitlist/${unknown}`), `GET /waitlist/${unknown}`, 'entry_not_found');
        checked.push('waitlist entry');
      }
      if (ctx.mcp) {
        expectMcpNotFound(
          await ctx.mcp.call('usp_services_get', mcpArgs(ctx, { service_id: unknown })),
          'usp_services_get',
          'service_not_found',
        );
        if (ctx.sandbox && hasCapability(ctx, BOOKINGS)) {
          expectMcpNotFound(
            await ctx.mcp.call('usp_bookings_get', mcpArgs(ctx, { booking_id: unknown })),
            'usp_bookings_get',
            'booking_not_found',
          );
        }
      }
      return `checked: ${checked.join(', ')}${ctx.mcp ? ' (REST and MCP)' : ''}`;
    },
  },
  {
    id: 'payments.confirm-payment-unknown-booking',
    section: 'errors',
    clause: '8.5.3, 9.1, 9.4.3 (newer)',
    level: 'MUST',
    title:
      'confirm-payment of an unknown booking_id is a 404 booking-not-found problem, no longer a booking_not_found business outcome',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const currency = ctx.profile?.usp?.business?.currency ?? 'USD';
      const paid = {
        payment_result: {
          status: 'paid',
          transaction_id: `txn_conformance_${randomUUID().slice(0, 8)}`,
          amount_paid: 0,
          currency,
        },
      };
      const a = await ctx.rest.post('/bookings/conformance_unknown_id/confirm-payment', paid, {
        idempotencyKey: randomUUID(),
      });
      expectNotFound(a, 'confirm-payment of an unknown booking', 'booking_not_found');
    },
  },
  {
    id: 'errors.families-disjoint',
    section: 'errors',
    clause: '9.4.1 (newer)',
    level: 'MUST',
    title:
      'an unknown service in a body (availability) is a business outcome whose code is not a protocol error code (service_not_found is the 404 of a path)',
    async run(ctx) {
      requireCapability(ctx, 'dev.usp-protocol.services.availability');
      const day = isoDate((await businessNow(ctx)) + 2 * 86_400_000, businessZone(ctx));
      const a = await ctx.rest.post('/availability/query', {
        service_id: 'svc_conformance_unknown',
        start_date: day,
        end_date: day,
      });
      expectThat(
        a.status === 200 && messageCodes(a.body).length > 0,
        `availability of an unknown service: ${describeAnswer(a)}`,
      );
      const both = messageCodes(a.body).filter((c) => NOT_FOUND_ERRORS.has(c));
      expectThat(
        both.length === 0,
        `availability of an unknown service answers the outcome ${both.join(', ')}, which the newer text makes a 404 protocol error`,
      );
    },
  },
  {
    id: 'money.digit-strings',
    section: 'envelope',
    clause: '1.1 (newer)',
    level: 'MUST',
    title:
      'a minor-unit amount on input is accepted as a string of digits as well as an integer: the price filter of services/list answers alike, and (with writes) confirm-payment reads amount_paid "0" as it reads 0',
    async run(ctx) {
      requireCapability(ctx, CATALOG);
      const listed = async (price: Record<string, unknown>) =>
        ctx.rest.post('/services/list', { filters: { price }, pagination: { limit: 100 } });
      const asInteger = await listed({ min: 0, max: 99_999_999 });
      const asString = await listed({ min: '0', max: '99999999' });
      expectThat(asInteger.status === 200, `services/list with an integer price filter: ${describeAnswer(asInteger)}`);
      expectThat(
        asString.status === 200,
        `services/list with the price filter as digit strings: ${describeAnswer(asString)}`,
      );
      const ids = (a: RestAnswer) => (a.body?.services ?? []).map((s: any) => s?.id).join(',');
      expectThat(
        ids(asString) === ids(asInteger),
        `the price filter as digit strings lists [${ids(asString)}], as integers [${ids(asInteger)}]`,
      );
      if (!ctx.writes || !hasCapability(ctx, BOOKINGS))
        return 'the price filter (confirm-payment needs writes and bookings)';
      const booking = await bookOrFail(ctx, await freshSlot(ctx));
      await cancel(ctx, booking.id);
      const currency = ctx.profile?.usp?.business?.currency ?? 'USD';
      const paid = {
        payment_result: {
          status: 'paid',
          transaction_id: `txn_conformance_${randomUUID().slice(0, 8)}`,
          amount_paid: '0',
          currency,
        },
      };
      const a = await ctx.rest.post(`/bookings/${encodeURIComponent(booking.id)}/confirm-payment`, paid, {
        idempotencyKey: randomUUID(),
      });
      const named = JSON.stringify(a.body?.errors ?? a.body?.detail ?? '').includes('amount_paid');
      expectThat(
        !(a.status === 400 || a.status === 422) || !named,
        `confirm-payment with amount_paid "0" refused the digit string: ${describeAnswer(a)}`,
      );
      return 'the price filter and confirm-payment';
    },
  },
  {
    id: 'credentials.reschedule-reissue',
    section: 'auth',
    clause: '5.3.6 (newer)',
    level: 'SHOULD',
    title:
      'a reschedule past the booking-scoped credential the booking was made with carries a fresh one for the new slot (the old one would lapse before it)',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const slot = await freshSlot(ctx);
      const { booking, answer } = await book(ctx, slot);
      if (!booking?.id) fail(`could not book a free slot (${slot.id}): ${describeAnswer(answer)}`);
      const first = answer.body?.booking_scoped_credential;
      if (!first?.expires_at) skip('the booking answer carried no booking_scoped_credential with expires_at');
      const lapses = Date.parse(first.expires_at);
      // A slot of the same service starting after the first credential lapses.
      const later = (await slotsOf(ctx, slot.service_id, 21, 7)).find((s) => Date.parse(s.start) > lapses);
      if (!later) skip(`no free slot of ${slot.service_id} after the credential lapses (${first.expires_at})`);
      const moved = await ctx.rest.post(
        `/bookings/${encodeURIComponent(booking.id)}/reschedule`,
        { slot_id: later!.id },
        { idempotencyKey: randomUUID() },
      );
      expectThat(
        moved.status === 200 && moved.body?.booking?.slot,
        `reschedule to ${later!.start}: ${describeAnswer(moved)}`,
      );
      const fresh = moved.body?.booking_scoped_credential;
      expectThat(
        fresh?.value,
        `moved to ${later!.start}, past the credential's expiry ${first.expires_at}, and the answer carries no new booking_scoped_credential`,
      );
      expectThat(
        Date.parse(fresh.expires_at) > Date.parse(later!.start),
        `the new credential expires ${fresh.expires_at}, before the new slot ${later!.start}`,
      );
    },
  },
  {
    id: 'catalog.lookup-unresolved',
    section: 'discovery',
    clause: '3.12.4, 9.4.2 (newer)',
    level: 'MUST',
    title:
      'an id a lookup cannot resolve is a service_unresolved warning naming it (service_not_found is the 404 protocol error now)',
    async run(ctx) {
      requireCapability(ctx, CATALOG);
      const a = await ctx.rest.post('/services/lookup', { ids: ['svc_conformance_unresolved'] });
      expectThat(a.status === 200, `lookup of an unknown id: ${describeAnswer(a)}`);
      const m = (a.body?.messages ?? []).find(
        (x: any) => x?.path === '$.ids[0]' || x?.code === 'service_unresolved' || x?.code === 'service_not_found',
      );
      expectThat(m, 'the unknown id is not reported in messages[]');
      expectThat(m.code === 'service_unresolved', `the unknown id is reported as ${m.code}, not service_unresolved`);
      expectThat(m.type === 'warning', `service_unresolved is a ${m.type}, not a warning`);
    },
  },
  {
    id: 'negotiation.extension-data-pruned',
    section: 'versioning',
    clause: '8.3 step 4',
    level: 'MUST',
    title:
      'a platform that did not negotiate the waitlist gets no waitlist data inside answers (a service read without capacity.waitlist)',
    async run(ctx) {
      requireCapability(ctx, WAITLIST);
      const svc = (await services(ctx)).find((s) => s?.capacity?.waitlist === true);
      if (!svc) skip('no service of the catalog offers a waitlist (capacity.waitlist)');
      const path = `/services/${encodeURIComponent(svc.id)}`;
      // The platform authenticates on the read where the business authenticates platforms, so the business may fetch its profile.
      const a = await withVariant(ctx, 'base-only', (profile) =>
        ctx.rest.send(path, {
          profile,
          headers: ctx.sandbox ? {} : { DPoP: dpopProof(createPopKey(), 'GET', ctx.rest.url(path)) },
        }),
      );
      expectThat(
        a.status === 200 && a.body?.service,
        `GET ${path} from a platform without the waitlist: ${describeAnswer(a as RestAnswer)}`,
      );
      expectThat(
        a.body.service.capacity?.waitlist === undefined,
        `the service read by a platform without the waitlist carries capacity.waitlist ${JSON.stringify(a.body.service.capacity?.waitlist)}`,
      );
    },
  },
  {
    id: 'catalog.unpayable-service',
    section: 'holds',
    clause: '3.3, 3.13, 8.5',
    level: 'MUST',
    title:
      'an active service paid online when booking can be paid: its booking offers a way to pay, never a refusal outside the spec (a business that cannot take it serves it suspended)',
    writes: true,
    async run(ctx) {
      requireCapability(ctx, BOOKINGS);
      const offered = (await services(ctx)).filter((s) => (s.status ?? 'active') === 'active' && paidOnline(s));
      if (offered.length === 0) skip('no active service is paid online when booking');
      for (const svc of offered) {
        const slots = await slotsOf(ctx, svc.id, 5);
        const slot = slots[0];
        if (!slot) continue;
        const h = await hold(ctx, { ...slot, service_id: slot.service_id ?? svc.id });
        const held = h.body?.hold?.id;
        const strange = messageCodes(h.body).filter((c) => !SPEC_OUTCOMES.has(c));
        if (strange.length > 0)
          fail(`a hold on ${svc.id} (offered active) answered ${strange.join(', ')}, outside the spec`);
        const { answer, booking } = await book(
          ctx,
          { ...slot, service_id: slot.service_id ?? svc.id },
          held ? { hold_id: held } : {},
        );
        const outside = messageCodes(answer.body).filter((c) => !SPEC_OUTCOMES.has(c));
        if (outside.length > 0)
          fail(
            `${svc.id} is offered active, but its booking answered ${outside.join(', ')}, outside the spec: ${describeAnswer(answer)}`,
          );
        if (!booking?.id) continue;
        const pay = (booking.actions ?? []).find((x: any) => x?.type === 'payment' && x?.status === 'pending');
        const settled = booking.status === 'confirmed' || booking.status === 'pending';
        expectThat(
          settled || pay?.continue_url,
          `${svc.id}: the booking is ${booking.status} with no payment action to continue at`,
        );
        return `${svc.id}: booked ${booking.status}${pay ? ', with a payment action' : ''}`;
      }
      skip('no free slot of a service paid online when booking');
    },
  },
];
