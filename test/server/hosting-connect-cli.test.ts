/**
 * Stripe Connect through the CLI (the built `bin/usp-server.js`, on the real clock): `host add
 * --stripe-account` and `host payment-account` record each business's connected account (checked, never
 * two businesses'), `host list --json` shows it, and `host serve` with only the platform's keys takes a
 * business's payment on its own account (the emulator sees its `Stripe-Account`) and applies the event
 * Stripe posts to the deployment's one Connect endpoint; an account changed by the CLI while it serves is
 * the next payment's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runCli, startCliServer, type RunningCli } from '../support/cli.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { waitFor } from '../support/time.js';
import { BUYER } from '../support/server.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';

const NORD_FILE = resolve(import.meta.dirname, '../fixtures/hosting/nord-studio.json');
const AGENT = { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' };
const work = mkdtempSync(join(tmpdir(), 'usp-hosting-connect-cli-'));
const data = ['--data', join(work, 'hosting')];
/** A day's date N days from now (the child runs on the real clock), in UTC. */
const dayFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const host = (args: string[]) => runCli(['host', ...args, ...data], { cwd: work, timeoutMs: 30_000 });

let stripe: EmulatedStripe;
let served: RunningCli | undefined;

beforeAll(async () => {
  ensureBuilt();
  vi.stubGlobal('fetch', hostFetch);
  stripe = await startStripeEmulator({ now: () => Date.now() });
}, 120_000);
afterAll(async () => {
  await served?.stop();
  await stripe?.close();
  vi.unstubAllGlobals();
  rmSync(work, { recursive: true, force: true });
});

/** A paid booking at the salon on the first day from `from` with a slot, and its Checkout Session's account. */
async function paidBooking(base: string, from: number) {
  for (let n = from; n < from + 10; n++) {
    const q = await hostCall(`${base}/availability/query`, {
      method: 'POST',
      headers: AGENT,
      body: { service_id: 'svc_massage_60', start_date: dayFromNow(n), end_date: dayFromNow(n), limit: 1 },
    });
    const slot = q.body?.slots?.[0];
    if (!slot) continue;
    const made = await hostCall(`${base}/bookings`, {
      method: 'POST',
      headers: AGENT,
      body: { service_id: 'svc_massage_60', slot_id: slot.id, buyer: BUYER },
    });
    expect(made.status, made.text).toBe(201);
    const booking = { ...(made.body.booking as { id: string; status: string }), day: n };
    expect(booking.status).toBe('requires_action');
    const session = () => [...stripe.sessions.values()].find((s) => s.client_reference_id === booking.id);
    await waitFor(() => session() !== undefined, 10_000, 'the checkout session made by the business worker');
    const account = stripe.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.body.client_reference_id === booking.id,
    )?.account;
    return { booking, session: session()!, account };
  }
  throw new Error(`no slot of svc_massage_60 from day ${from} on`);
}

describe('Stripe Connect through the host CLI', () => {
  test('host add --stripe-account and host payment-account keep one account per business, checked', async () => {
    expect((await host(['add', '--demo', '--host', 'salon.localhost', '--stripe-account', 'acct_bad-1'])).code).toBe(2);
    const added = await host(['add', '--demo', '--host', 'salon.localhost', '--stripe-account', 'acct_1SalonCli']);
    expect(added.code, added.stderr).toBe(0);
    expect((await host(['add', NORD_FILE, '--host', 'nord.localhost'])).code).toBe(0);
    const shared = await host(['payment-account', 'biz_nord_studio', 'acct_1SalonCli']);
    expect(shared.code).toBe(1);
    expect(shared.stderr).toContain('acct_1SalonCli');
    expect((await host(['payment-account', 'biz_nord_studio', 'cus_123'])).code).toBe(2);
    expect((await host(['payment-account', 'biz_nobody', 'acct_1Nobody'])).code).toBe(1);
    expect((await host(['payment-account', 'biz_nord_studio', 'acct_1NordCli'])).code).toBe(0);
    const listed = JSON.parse((await host(['list', '--json'])).stdout);
    expect(
      Object.fromEntries(listed.map((b: { id: string; payment_account?: string }) => [b.id, b.payment_account])),
    ).toEqual({
      biz_maple_pine: 'acct_1SalonCli',
      biz_nord_studio: 'acct_1NordCli',
    });
    expect((await host(['payment-account', 'biz_nord_studio', '--none'])).code).toBe(0);
    expect(JSON.parse((await host(['list', '--json'])).stdout)[1].payment_account).toBeUndefined();
  }, 60_000);

  test("host serve with the platform's keys: a business is paid on its own account, its event applied through the Connect endpoint", async () => {
    served = await startCliServer(
      [
        'host',
        'serve',
        '--sandbox',
        '--port',
        '0',
        ...data,
        '--stripe-secret-key',
        stripe.secretKey,
        '--stripe-webhook-secret',
        stripe.webhookSecret,
        '--stripe-api-url',
        stripe.url,
      ],
      { cwd: work },
    );
    const base = `http://salon.localhost:${new URL(served.url).port}`;
    const { booking, session, account } = await paidBooking(base, 2);
    expect(account).toBe('acct_1SalonCli');
    const paid = stripe.pay(String(session.id));
    stripe.webhookUrl = `http://nord.localhost:${new URL(served.url).port}/stripe/connect/webhook`;
    expect(await stripe.deliver(paid)).toBe(200);
    const after = await hostCall(`${base}/bookings/${booking.id}`, { headers: AGENT });
    expect(after.body.booking.status).toBe('confirmed');

    // The account changed by the CLI while the salon is loaded in `host serve`: its next payment is on the new one.
    expect((await host(['payment-account', 'biz_maple_pine', 'acct_1SalonMoved'])).code).toBe(0);
    const moved = await paidBooking(base, booking.day + 1);
    expect(moved.account).toBe('acct_1SalonMoved');
  }, 90_000);
});
