import { z } from 'zod';
import { invalidRequest } from '../core/errors.js';
import { defineOperation, ok } from '../core/define.js';
import { decodeCursor, encodeCursor, Out } from '../schemas.js';
import { iso } from '../core/context.js';

const DEFAULT_LIMIT = 50;

export const servicesFeed = defineOperation({
  name: 'services_feed',
  tool: 'usp_services_feed',
  rest: { method: 'GET', path: '/services/feed', input: 'query' },
  access: 'public',
  capability: 'dev.usp-protocol.services.catalog',
  mutating: false,
  conditional: false,
  writes: false,
  output: { items: Out.objects, feed_meta: Out.object, pagination: Out.object },
  summary: 'Incremental catalog feed in ascending modified_at order, including deletions.',
  input: z.object({
    // The official params allow null for "from the start" (the OpenRPC cursor is string or null).
    cursor: z.string().max(2048).nullable().optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    location_id: z.string().max(200).optional(),
  }),
  async handle(inp, ctx) {
    let afterMs = -1;
    let afterId = '';
    if (inp.cursor) {
      const c = decodeCursor(inp.cursor);
      if (!c || typeof c.m !== 'number' || typeof c.i !== 'string') {
        throw invalidRequest('cursor is not a feed cursor this business issued.', [
          { field: 'cursor', message: 'unknown cursor' },
        ]);
      }
      afterMs = c.m;
      afterId = c.i;
    }
    const limit = inp.limit ?? DEFAULT_LIMIT;
    const rows = await ctx.tx.catalog.feed(afterMs, afterId, limit + 1, inp.location_id);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const all = await ctx.tx.catalog.all();
    const last = page[page.length - 1];
    // Without more items, hand back a cursor at the end so the platform can poll for changes.
    const next = last ? encodeCursor({ m: last.modified_ms, i: last.id }) : (inp.cursor ?? null);
    return ok({
      items: page.map((s) => ({
        state: s.deleted ? 'deleted' : 'updated',
        modified_at: iso(s.modified_ms),
        data: s.data,
      })),
      feed_meta: {
        feed_generated_at: iso(ctx.now),
        total_services: all.filter((s) => !s.deleted).length,
        feed_status: 'healthy',
      },
      pagination: { next_cursor: next, cursor: next, has_more: hasMore },
    });
  },
});
