/**
 * The operator invites a business's owner by mail (issue 39 item 3), over real HTTP with the Host
 * set: at create (owner_email) or later (POST /businesses/{id}/invite), the business mails, through
 * its own mail and in its own name, a one-time setup link at its own origin; the link makes the
 * owner's account once, expires, and survives the business being closed and reloaded. A business
 * with an account, one that sends no mail, and a bad address are refused with a clear problem.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManualClock, SETUP_TTL_MS } from '../../src/operations/index.js';
import type { Hosting } from '../../src/server/hosting.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { NORD, NORD_FILE, deployHosting, mailIn, salonEntry, undeploy, type Deployment } from '../support/hosting.js';

const OPERATOR_KEY = 'operator-key-0123456789abcdef';
const SALON = { id: 'biz_maple_pine', host: 'salon.localhost' };
const OWNER = 'owner@nord-studio.example';

describe("the operator invites a business's owner by mail", () => {
  let d: Deployment;
  let dir: string;
  let hosting: Hosting;
  let port: string;
  const clock = new ManualClock(TEST_NOW);
  const url = (host: string, path: string) => `http://${host}:${port}${path}`;
  const op = (path: string, body?: unknown) =>
    hostCall(url('operator.localhost', path), {
      method: body === undefined ? 'GET' : 'POST',
      body,
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });
  const mailDir = () => join(dir, 'mail', NORD.id);
  const mails = async (): Promise<ParsedMail[]> =>
    existsSync(mailDir())
      ? Promise.all(readdirSync(mailDir()).map((f) => simpleParser(readFileSync(join(mailDir(), f)))))
      : [];
  /** The setup link of the n-th invitation mail (1-based), once it is written. */
  const linkOf = async (n: number): Promise<string> => {
    let found: ParsedMail[] = [];
    await waitFor(
      async () => {
        found = (await mails()).filter((m) => m.headers.get('x-usp-message-kind') === 'owner_invite');
        return found.length >= n;
      },
      10_000,
      `invitation mail ${n}`,
    );
    const links = found.map((m) => /(http:\S+\/admin\/setup\?token=[A-Za-z0-9_-]+)/.exec(String(m.text))?.[1]);
    return links.find((l) => l && !used.has(l))!;
  };
  const used = new Set<string>();
  /** The owner's account through the setup page the link opens (its form and CSRF cookie): the form's status. */
  const setUp = async (link: string): Promise<number> => {
    used.add(link);
    const page = await hostFetch(link);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0]!;
    const token = new URL(link).searchParams.get('token')!;
    const form = new URLSearchParams({
      _csrf: csrf,
      token,
      email: OWNER,
      password: 'a long enough password',
      password_again: 'a long enough password',
    });
    const res = await hostFetch(new URL('/admin/setup', link), {
      method: 'POST',
      headers: { cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    return res.status;
  };

  beforeAll(async () => {
    d = await deployHosting({
      businesses: [salonEntry()],
      server: { clock },
      // Nord's mail is written to its own folder, as `host serve --mail-dir` does; the salon sends none.
      serverFor: (b, dir) => (b.id === NORD.id ? { mail: mailIn(b, dir) } : {}),
      operator: true,
      prefix: 'usp-operator-invite-',
    });
    ({ dir, hosting, port } = d);
  }, 60_000);
  afterAll(async () => {
    await undeploy(d);
  });

  test('created with owner_email, the business mails her a setup link at its own origin, in its own name', async () => {
    const business = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
    const made = await op('/businesses', { business, hosts: [NORD.host], owner_email: OWNER });
    expect(made.status, made.text).toBe(201);
    expect(made.body.business).toMatchObject({ id: NORD.id, invited: true });
    const link = await linkOf(1);
    expect(link.startsWith(`${url(NORD.host, '/admin/setup?token=')}`)).toBe(true);
    const mail = (await mails()).find((m) => m.headers.get('x-usp-message-kind') === 'owner_invite')!;
    expect(mail.subject).toBe('Set up your dashboard');
    expect(JSON.stringify(mail.to)).toContain(OWNER);
    expect(JSON.stringify(mail.from)).toContain(`no-reply@${NORD.host}`);
    expect(String(mail.text)).toContain(`${SETUP_TTL_MS / 3600_000} hours`);
  });

  test('the link expires; a new invitation mails a new one, which outlives a reload, works once, and then no more invitations', async () => {
    const first = await linkOf(1);
    clock.advance(SETUP_TTL_MS + 60_000);
    expect(await setUp(first)).toBe(401);
    const again = await op(`/businesses/${NORD.id}/invite`, { email: OWNER });
    expect(again.status, again.text).toBe(202);
    const second = await linkOf(2);
    // Closed (idle, or its names changed) and loaded again: the mailed link is not replaced by a new start's.
    await hosting.pool.close(NORD.id);
    expect((await hostCall(url(NORD.host, '/.well-known/usp'))).status).toBe(200);
    expect(await setUp(second)).toBe(303);
    expect(await setUp(second)).toBe(401);
    const third = await op(`/businesses/${NORD.id}/invite`, { email: OWNER });
    expect(third.status, third.text).toBe(409);
    expect(third.body.detail).toContain('already has a dashboard account');
  });

  test('a bad address, an unknown business and a business that sends no mail are refused with a clear problem', async () => {
    for (const email of ['not-an-address', '', 42, 'a@b.invalid']) {
      const r = await op(`/businesses/${SALON.id}/invite`, { email });
      expect(r.status, r.text).toBe(400);
      expect(r.body.detail).toContain('email');
    }
    expect((await op('/businesses/biz_nobody/invite', { email: OWNER })).status).toBe(404);
    const quiet = await op(`/businesses/${SALON.id}/invite`, { email: 'owner@maple.example' });
    expect(quiet.status, quiet.text).toBe(409);
    expect(quiet.body.detail).toContain('sends no mail');
    expect(
      (
        await hostCall(url('operator.localhost', `/businesses/${SALON.id}/invite`), {
          method: 'GET',
          headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
        })
      ).status,
    ).toBe(405);
  });
});
