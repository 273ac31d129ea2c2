import { z } from 'zod';
import {
  minorAmount,
  primaryCategory,
  searchableText,
  warningMessage,
  type PublishedService,
} from '../../domain/index.js';
import { suspensionSentence } from '../business.js';
import { invalidRequest } from '../core/errors.js';
import { defineOperation, ok } from '../core/define.js';
import { PaginationRequest, decodeCursor, encodeCursor, Out } from '../schemas.js';
import { withHint } from './present-service.js';

const DEFAULT_LIMIT = 20;

const input = z.object({
  query: z
    .string()
    .max(500)
    .optional()
    .describe('Free text, e.g. "haircut" or "evening yoga"; results are ranked by relevance.'),
  filters: z
    .object({
      type: z.string().max(100).optional(),
      category_id: z.string().max(200).optional(),
      categories: z.array(z.string().max(200)).max(50).optional(),
      location_id: z.string().max(200).optional(),
      price: z.object({ min: minorAmount(0).optional(), max: minorAmount(0).optional() }).optional(),
    })
    .optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  pagination: PaginationRequest,
});

export const listServices = defineOperation({
  name: 'list_services',
  tool: 'usp_services_list',
  rest: { method: 'POST', path: '/services/list', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.services.catalog',
  mutating: false,
  conditional: false,
  writes: false,
  output: { services: Out.objects, pagination: Out.object },
  summary: 'List the services the business offers, filtered and searched.',
  input,
  async handle(inp, ctx) {
    const f = inp.filters ?? {};
    const terms = (inp.query ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t.length > 1);
    const scored: Array<{ s: PublishedService; score: number; order: number }> = [];
    ctx.biz.serviceOrder.forEach((sid, order) => {
      const s = ctx.biz.published.get(sid)!;
      if ((s.status ?? 'active') !== 'active') return;
      if (!matchesFilters(s, f)) return;
      let score = 0;
      if (terms.length > 0) {
        const text = searchableText(s);
        for (const t of terms) if (text.includes(t)) score++;
        if (score === 0) return;
      }
      scored.push({ s, score, order });
    });
    scored.sort((a, b) => b.score - a.score || a.order - b.order);

    const cursor = inp.pagination?.cursor ? decodeCursor(inp.pagination.cursor) : null;
    if (inp.pagination?.cursor && (!cursor || typeof cursor.o !== 'number' || cursor.o < 0)) {
      throw invalidRequest('pagination.cursor is not a cursor this business issued.', [
        { field: 'pagination.cursor', message: 'unknown cursor' },
      ]);
    }
    const offset = (cursor?.o as number | undefined) ?? 0;
    const limit = inp.pagination?.limit ?? DEFAULT_LIMIT;
    const page = scored.slice(offset, offset + limit);
    const hasMore = offset + limit < scored.length;
    const services = [];
    for (const { s } of page) services.push(await withHint(ctx, s));
    const answer = ok({
      services,
      pagination: { cursor: hasMore ? encodeCursor({ o: offset + limit }) : null, has_more: hasMore },
    });
    // A business its operator suspended lists no service: the answer says why rather than looking empty.
    return ctx.biz.suspended
      ? { ...answer, messages: [warningMessage('business_suspended', suspensionSentence(ctx.biz.suspended))] }
      : answer;
  },
});

function matchesFilters(s: PublishedService, f: NonNullable<z.output<typeof input>['filters']>): boolean {
  if (f.type && s.type !== f.type) return false;
  const wanted = f.categories && f.categories.length > 0 ? f.categories : f.category_id ? [f.category_id] : [];
  if (wanted.length > 0) {
    const cats = (s.categories as Array<Record<string, unknown>> | undefined) ?? [];
    const primary = primaryCategory({ categories: cats });
    const ids = new Set(cats.map((c) => c.id).filter(Boolean));
    if (!wanted.some((w) => primary?.id === w || ids.has(w))) return false;
  }
  if (f.location_id) {
    const locs = (s.locations as Array<{ id: string }> | undefined) ?? [];
    if (locs.length > 0 && !locs.some((l) => l.id === f.location_id)) return false;
  }
  if (f.price && (f.price.min !== undefined || f.price.max !== undefined)) {
    const p = s.pricing as { model: string; amount?: number; price_range?: { min: number; max: number } };
    const lo = p.model === 'free' ? 0 : (p.price_range?.min ?? p.amount);
    const hi = p.model === 'free' ? 0 : (p.price_range?.max ?? p.amount);
    if (lo === undefined || hi === undefined) return false;
    if (f.price.max !== undefined && lo > f.price.max) return false;
    if (f.price.min !== undefined && hi < f.price.min) return false;
  }
  return true;
}
