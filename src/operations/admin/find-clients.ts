import { z } from 'zod';
import { isoUtc, nameMatches, normalizeEmail } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';
import { bookingsByName } from './personal-data.js';

/** At most this many people are listed for one name search; a longer list asks for more letters. */
const MAX_CLIENTS = 50;

/**
 * The people whose name contains what the front desk typed (first or last name, any case, accents
 * ignored): one row per person (by email), with their phone, how many bookings and the latest one.
 * Their history and note are then read by email with get_client.
 */
export const findClients = defineOperation({
  name: 'find_clients',
  rest: { method: 'GET', path: '/admin/clients/by-name', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'clients_by_name',
  output: { clients: Out.objects },
  summary: 'The clients whose first or last name contains the text (case and accents ignored), one row per person.',
  input: z.object({
    name: z
      .string()
      .trim()
      .min(2)
      .max(100)
      .describe('Part of a first or last name, at least two letters ("jose" finds José).'),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const people = new Map<
      string,
      {
        first_name: string;
        last_name: string;
        email: string;
        phone_number?: string;
        bookings: number;
        latest_start: string;
      }
    >();
    for (const r of await bookingsByName(ctx, inp.name)) {
      const b = r.booking;
      for (const p of [b.buyer, b.recipient]) {
        if (!p?.email || !nameMatches(p, inp.name)) continue;
        const key = normalizeEmail(p.email);
        const seen = people.get(key);
        if (seen) seen.bookings++;
        else if (people.size < MAX_CLIENTS) {
          people.set(key, {
            first_name: p.first_name,
            last_name: p.last_name,
            email: p.email,
            ...(p.phone_number ? { phone_number: p.phone_number } : {}),
            bookings: 1,
            latest_start: isoUtc(r.priv.start_ms),
          });
        }
      }
    }
    return ok({ clients: [...people.values()] });
  },
});
