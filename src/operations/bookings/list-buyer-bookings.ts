import { z } from 'zod';
import type { OAuthScope } from '../../domain/index.js';
import { defineOperation, ok } from '../core/define.js';
import { ProtocolError, invalidRequest } from '../core/errors.js';
import { expireIfDue } from './lifecycle.js';
import { decodeCursor, encodeCursor, Out } from '../schemas.js';

/** The scope that lets a linked assistant see and manage the buyer's bookings from any platform (spec 10.2.4). */
export const HISTORY_SCOPE: OAuthScope = 'usp:history';

/**
 * The linked buyer's bookings at this business, newest first, whichever platform made them. The
 * spec names the `usp:history` scope but no operation to read the history with; this is ours
 * (not in the official OpenRPC or OpenAPI documents), for a caller whose OAuth token is linked to a
 * buyer account and carries that scope. Part of our extension capability dev.usp-server.services.bookings.
 */
export const listBuyerBookings = defineOperation({
  // Not `list_bookings`: that name is the admin API's list of all the business's bookings.
  name: 'list_buyer_bookings',
  tool: 'uspserver_bookings_list',
  rest: { method: 'GET', path: '/ext/usp-server/bookings', input: 'query' },
  extension: 'dev.usp-server.services.bookings',
  // Its first names were in the protocol's own namespace (the usp_ prefix, the /bookings family).
  formerly: {
    tool: 'usp_bookings_list',
    rest: { method: 'GET', path: '/bookings', input: 'query' },
    since: '2026-12-01',
    until: 'usp-server 0.2.0',
  },
  access: 'privileged_platform',
  scopes: [HISTORY_SCOPE],
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  // Reading applies expiry of pending bookings, which writes.
  writes: true,
  output: { bookings: Out.objects, pagination: Out.object },
  summary: "List the linked buyer's bookings at this business (needs an OAuth token the buyer granted usp:history).",
  input: z.object({
    status: z.string().max(64).optional().describe('Only bookings in this status (confirmed, pending, canceled, ...).'),
    cursor: z.string().max(2048).optional().describe('next_cursor from the previous page.'),
    limit: z.coerce.number().int().min(1).max(50).optional().describe('At most this many (default 20).'),
  }),
  async handle(inp, ctx) {
    const account = ctx.caller.account;
    if (!account || !account.scopes.includes(HISTORY_SCOPE)) {
      throw new ProtocolError(
        'authentication_required',
        'Booking history needs an OAuth token linked to a buyer account with the usp:history scope.',
        {
          detailCode: 'account_not_linked',
        },
      );
    }
    const limit = inp.limit ?? 20;
    let before: { createdMs: number; bookingId: string } | undefined;
    if (inp.cursor) {
      const c = decodeCursor(inp.cursor);
      if (!c || typeof c.m !== 'number' || typeof c.i !== 'string')
        throw invalidRequest('cursor is not a cursor this business issued.', [
          { field: 'cursor', message: 'unknown cursor' },
        ]);
      before = { createdMs: c.m, bookingId: c.i };
    }
    const bookings = [];
    let last: { createdMs: number; bookingId: string } | undefined;
    let more = false;
    // Filtering by status happens after the page is read, so read pages until one is full.
    for (let round = 0; round < 10 && bookings.length < limit; round++) {
      const rows = await ctx.tx.accounts.bookings(account.id, limit + 1, before);
      more = rows.length > limit;
      for (const r of rows.slice(0, limit)) {
        last = r;
        const rec = await ctx.tx.bookings.get(r.bookingId);
        if (!rec) continue;
        await expireIfDue(ctx, rec);
        if (inp.status && rec.booking.status !== inp.status) continue;
        bookings.push(rec.booking);
        if (bookings.length === limit) break;
      }
      if (!more || !last) break;
      before = last;
    }
    const next = more && last ? encodeCursor({ m: last.createdMs, i: last.bookingId }) : null;
    return ok({ bookings, pagination: { has_more: next !== null, ...(next ? { next_cursor: next } : {}) } });
  },
});
