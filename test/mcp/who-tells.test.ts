/**
 * A result that leaves the person waiting says who will tell them, by when, and what happens if
 * nobody acts (issue 36, item 7), read only from `content[].text` through the official SDK client:
 * with mail configured the business mails the address given; without it nobody but the assistant
 * tells the person. A request the business must confirm says what happens at its deadline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, type McpConn, type ToolResult } from './helpers.js';

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
let t: TestServer | undefined;
let conn: McpConn | undefined;
let dir: string | undefined;
afterEach(async () => {
  await conn?.close();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  conn = t = dir = undefined;
});

async function open(mail: boolean): Promise<McpConn> {
  if (mail) dir = mkdtempSync(join(tmpdir(), 'usp-who-tells-'));
  t = await startTestServer(mail ? { mail: { dir, startWorker: false } } : {});
  conn = await connectMcp('v2', 'memory', t);
  return conn;
}

async function book(c: McpConn, service_id: string, n: number): Promise<ToolResult> {
  const q = await c.call('usp_availability_query', { service_id, start_date: day(n), end_date: day(n), ...meta() });
  return c.call('usp_bookings_create', {
    service_id,
    slot_id: q.structuredContent.slots[0].id,
    buyer: BUYER,
    ...meta(undefined, { idempotency_key: randomUUID() }),
  });
}

describe('who tells the person, by when, and what happens if nobody acts', () => {
  it('with mail: the business mails the address given about the answer, the payment link and an offer; a request lapses at its deadline', async () => {
    const c = await open(true);
    const asked = text(await book(c, 'svc_color_consult', 4));
    expect(asked).toContain('The business mails ada@example.com whether it is confirmed or declined.');
    expect(asked).toMatch(
      /If the business has not answered by \w{3}, \w{3} \d+, 2026, \d+:\d\d\s[AP]M E[SD]T \(America\/New_York\), the request lapses: the booking is canceled by the system, the time freed/,
    );
    expect(text(await book(c, 'svc_massage_60', 4))).toContain(
      'The business mails ada@example.com the payment link and its deadline.',
    );
    const joined = await c.call('usp_waitlist_join', {
      service_id: 'svc_yoga_class',
      buyer: BUYER,
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    expect(text(joined)).toContain(
      'The business mails ada@example.com an offer when one is made, with a link to accept or decline it.',
    );
  });

  it('without mail: the text says nobody else tells the person, so the assistant must', async () => {
    const c = await open(false);
    const asked = text(await book(c, 'svc_color_consult', 5));
    expect(asked).toContain(
      'The business sends no mail from this server, so nobody else tells the person whether it is confirmed or declined: tell them yourself',
    );
  });
});
