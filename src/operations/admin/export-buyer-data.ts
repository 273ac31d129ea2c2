import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';
import { exportPerson } from './personal-data.js';
import { PersonInput, personFrom } from './person-input.js';

/**
 * Everything the business keeps about one person (spec 10.1.3), as JSON: their bookings, waitlist
 * entries, holds, buyer account, the client note, and the outbox events, webhook deliveries,
 * stored responses and payment jobs that name them. A read: nothing of it is stored again.
 */
export const exportBuyerData = defineOperation({
  name: 'export_buyer_data',
  rest: { method: 'POST', path: '/admin/buyers/export', input: 'body' },
  ...BUSINESS_READ,
  dashboard: 'buyer_export',
  output: { export: Out.object },
  summary: "Everything stored about one buyer (by email or phone), as JSON: a buyer's data export.",
  input: z.object(PersonInput),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const person = personFrom(inp);
    return ok({ export: { person, exported_at: isoUtc(ctx.now), ...(await exportPerson(ctx, { person })) } });
  },
});
