/**
 * A malformed form body (a multipart body whose boundary never comes) sent to any HTML door (the
 * dashboard, the buyer's pages, the OAuth account pages) is the sender's mistake: a 400 with that
 * door's own HTML page and a log line for the operator, never a plain-text 500.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

describe('a malformed multipart body gets a 400 HTML page and a log line in every HTML door', () => {
  let t: TestServer;
  const logged: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
  beforeAll(async () => {
    const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
      void logged.push({ level, msg, fields });
    t = await startTestServer({ log: { info: at('info'), warn: at('warn'), error: at('error') } });
  });
  afterAll(() => t?.close());

  for (const [door, path] of [
    ['dashboard', '/admin/login'],
    ['oauth', '/account/login'],
    ['pages', '/checkout/bkg_anything'],
  ] as const) {
    test(`${door}: POST ${path} with a broken multipart body answers 400 text/html, not a 500`, async () => {
      const res = await fetch(t.url + path, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=never-comes', accept: 'text/html' },
        body: 'email=a@b.example&password=x',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).toContain('The form could not be read');
      expect(logged).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'malformed request body',
          fields: expect.objectContaining({ door, path }),
        }),
      );
    });
  }
});
