import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { Out } from '../schemas.js';
import { erasePersonEverywhere } from './personal-data.js';
import { PersonInput, personFrom } from './person-input.js';

/**
 * Erase one person's data everywhere (spec 10.1.3): in every booking, waitlist entry and hold the
 * person becomes ERASED_BUYER (times, money and ids stay; notes, delivery addresses and recipients
 * of their bookings go), their buyer account, its sessions and grants end, the client note goes, and
 * outbox events, webhook deliveries, stored responses and payment jobs naming them are rewritten.
 * The answer and the audit row say how many records changed, never who.
 */
export const eraseBuyerData = defineOperation({
  name: 'erase_buyer_data',
  rest: { method: 'POST', path: '/admin/buyers/erase', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  destructive: true,
  idempotent: true,
  dashboard: 'buyer_erase',
  output: { erased: Out.object },
  summary: "Erase one buyer's personal data everywhere (bookings keep their times and money); ends their account.",
  input: z.object(PersonInput),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    return ok({ erased: await erasePersonEverywhere(ctx, { person: personFrom(inp) }) });
  },
});
