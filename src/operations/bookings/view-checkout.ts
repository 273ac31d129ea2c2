/**
 * The business-hosted checkout page behind every payment action's `continue_url` (spec 8.5.4,
 * 8.5.5). Reading it shows what is due and never buyer data; after the action expires it says so
 * explicitly.
 */
import { z } from 'zod';
import { defineOperation, ok } from '../core/define.js';
import { checkoutView } from './views.js';
import { id } from '../schemas.js';

export const viewCheckout = defineOperation({
  name: 'view_checkout',
  rest: { method: 'GET', path: '/checkout/{booking_id}', input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  page: 'checkout',
  summary: 'The hosted checkout page of a payment action (HTML for browsers, JSON otherwise).',
  input: z.object({ booking_id: id('The booking being paid.') }),
  async handle(inp, ctx) {
    return ok({ checkout: (await checkoutView(ctx, inp.booking_id)).v });
  },
});
