/**
 * Custom domains through the operator API (issue 39 item 3), over real HTTP with the Host set: a
 * domain added is pending with a token and reaches nothing; verification reads the TXT record at
 * `_usp-verify.<domain>` through the injected resolver (no request to the domain itself) and only a
 * record holding the token routes the domain to the business. A domain another business holds or
 * claims is refused.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostCall } from '../support/host-fetch.js';
import {
  NORD,
  NORD_FILE,
  OPERATOR_KEY,
  SALON,
  deployHosting,
  nordEntry,
  salonEntry,
  undeploy,
  type Deployment,
} from '../support/hosting.js';

const DOMAIN = 'salon-books.localhost';

describe('custom domains verified by a DNS TXT record', () => {
  let d: Deployment;
  let port: string;
  /** The injected DNS: TXT records by name; a name listed in `failing` answers a server failure. */
  const txt = new Map<string, string[][]>();
  const failing = new Set<string>();
  const asked: string[] = [];
  const url = (host: string, path: string) => `http://${host}:${port}${path}`;
  const op = (path: string, body?: unknown) =>
    hostCall(url('operator.localhost', path), {
      method: 'POST',
      body,
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });

  beforeAll(async () => {
    d = await deployHosting({
      businesses: [salonEntry(), nordEntry({ definition: readFileSync(NORD_FILE, 'utf8') })],
      operator: {
        resolveTxt: async (name) => {
          asked.push(name);
          if (failing.has(name)) throw Object.assign(new Error('queryTxt ESERVFAIL'), { code: 'ESERVFAIL' });
          const records = txt.get(name);
          if (!records) throw Object.assign(new Error('queryTxt ENOTFOUND'), { code: 'ENOTFOUND' });
          return records;
        },
      },
      prefix: 'usp-operator-domains-',
    });
    ({ port } = d);
  }, 60_000);
  afterAll(async () => {
    await undeploy(d);
  });

  test('added, a domain is pending with its token and reaches nothing; only the TXT record holding the token routes it', async () => {
    const added = await op(`/businesses/${SALON.id}/domains`, { domain: 'Salon-Books.localhost' });
    expect(added.status, added.text).toBe(201);
    const [pending] = added.body.business.pending_domains;
    expect(pending).toMatchObject({ domain: DOMAIN, status: 'pending', txt_name: `_usp-verify.${DOMAIN}` });
    expect(pending.txt_value).toMatch(/^usp-verify=[A-Za-z0-9_-]{20,}$/);
    expect(added.body.business.hosts).toEqual([SALON.host]);
    // Added again: the same token (the record the owner may have published stays right).
    expect(
      (await op(`/businesses/${SALON.id}/domains`, { domain: DOMAIN })).body.business.pending_domains[0].txt_value,
    ).toBe(pending.txt_value);
    expect((await hostCall(url(DOMAIN, '/.well-known/usp'))).status).toBe(404);

    const verify = () => op(`/businesses/${SALON.id}/domains/${DOMAIN}/verify`);
    const none = await verify();
    expect(none.status, none.text).toBe(422);
    expect(none.body.detail).toContain(`_usp-verify.${DOMAIN}`);
    txt.set(`_usp-verify.${DOMAIN}`, [['usp-verify=someone-elses-token']]);
    expect((await verify()).status).toBe(422);
    failing.add(`_usp-verify.${DOMAIN}`);
    const broken = await verify();
    expect(broken.status, broken.text).toBe(422);
    expect(broken.body.detail).toContain('ESERVFAIL');
    failing.clear();
    expect((await hostCall(url(DOMAIN, '/.well-known/usp'))).status).toBe(404);

    // A long token may come split into character strings: they are joined.
    const token = pending.txt_value as string;
    txt.set(`_usp-verify.${DOMAIN}`, [['v=spf1 -all'], [token.slice(0, 10), token.slice(10)]]);
    const ok = await verify();
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.business.hosts).toEqual([SALON.host, DOMAIN]);
    expect(ok.body.business.pending_domains).toBeUndefined();
    const served = await hostCall(url(DOMAIN, '/.well-known/usp'));
    expect(served.status, served.text).toBe(200);
    expect(served.text).toContain('Maple');
    // Only the verification name was looked up: nothing was asked of the domain itself.
    expect(new Set(asked)).toEqual(new Set([`_usp-verify.${DOMAIN}`]));
  });

  test("a domain another business holds or claims, the operator's name and a bad name are refused", async () => {
    expect((await op(`/businesses/${NORD.id}/domains`, { domain: DOMAIN })).status).toBe(409);
    expect((await op(`/businesses/${NORD.id}/domains`, { domain: SALON.host })).status).toBe(409);
    expect((await op(`/businesses/${SALON.id}/domains`, { domain: 'pending.salon.localhost' })).status).toBe(201);
    const claimed = await op(`/businesses/${NORD.id}/domains`, { domain: 'pending.salon.localhost' });
    expect(claimed.status, claimed.text).toBe(409);
    expect(claimed.body.detail).toContain('claimed by another business');
    expect((await op(`/businesses/${NORD.id}/domains`, { domain: 'operator.localhost' })).status).toBe(409);
    for (const domain of ['not a domain', 'https://x.example', 42, undefined])
      expect((await op(`/businesses/${NORD.id}/domains`, { domain })).status).toBe(400);
    // Nord cannot verify the salon's pending domain, even with its record published.
    const salonToken = (
      await hostCall(url('operator.localhost', `/businesses/${SALON.id}`), {
        headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
      })
    ).body.business.pending_domains[0].txt_value;
    txt.set('_usp-verify.pending.salon.localhost', [[salonToken]]);
    expect((await op(`/businesses/${NORD.id}/domains/pending.salon.localhost/verify`)).status).toBe(404);
    expect((await hostCall(url('pending.salon.localhost', '/.well-known/usp'))).status).toBe(404);
    expect((await op('/businesses/biz_nobody/domains', { domain: 'x.localhost' })).status).toBe(404);
  });
});
