/** The subscribed calendar feeds (`/calendars/{resource_id}.ics?token=...`): a calendar file, or a problem document. */
import type { Hono } from 'hono';
import { operationForPage, type Pipeline, type ScopeResolver } from '../../operations/index.js';
import { problemResponse } from '../../web/index.js';

export function registerCalendarFeeds(app: Hono<any>, pipeline: Pipeline, scopeOf: ScopeResolver): void {
  app.get('/calendars/:resource_file', async (c) => {
    const res = await pipeline.execute(
      operationForPage('subscribed_calendar'),
      { input: { resource_file: c.req.param('resource_file'), token: c.req.query('token') } },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return problemResponse(c.req.path, res.error);
    return new Response(res.data.calendar as string, {
      headers: {
        'Content-Type': 'text/calendar; charset=utf-8',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
      },
    });
  });
}
