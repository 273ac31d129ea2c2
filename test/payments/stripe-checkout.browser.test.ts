/**
 * The buyer's way through Stripe in a real browser: our checkout page behind continue_url, its Pay
 * button to the (emulated) Stripe Checkout, paying there (the emulator sends the signed
 * checkout.session.completed), and back through our return page to the booking, now confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAVE_CHROMIUM, launchBrowser, noteWithoutChromium } from '../support/browser.js';
import { paidBooking, sessionOf, startStripeRig, type StripeRig } from './helpers.js';

noteWithoutChromium('stripe checkout browser');

describe.skipIf(!HAVE_CHROMIUM)('paying through Stripe in a browser (skipped without /usr/bin/chromium)', () => {
  let browser: Browser;
  let rig: StripeRig;
  beforeAll(async () => {
    browser = await launchBrowser();
    rig = await startStripeRig();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it('continue_url -> Pay -> emulated Checkout -> pay -> our return page -> the confirmed booking', async () => {
    const b = await paidBooking(rig.t);
    await sessionOf(rig, b.id);
    const page = await browser.newPage();
    await page.goto(b.actions[0].continue_url);
    await page.getByRole('link', { name: /^Pay / }).click();
    await page.waitForURL(/\/pay\/cs_/);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(new RegExp(`/booking/${b.id}$`));
    expect(await page.textContent('body')).toContain('Confirmed');
    expect((await rig.t.call('GET', `/bookings/${b.id}`)).body.booking.status).toBe('confirmed');
    await page.close();
  }, 60_000);
});
