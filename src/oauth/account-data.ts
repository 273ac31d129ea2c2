/**
 * A buyer's own data from their account page (spec 10.1.3): download everything the business keeps
 * about them, or have it erased. Both act only on the signed-in account's email (never one a form
 * names), carry the page's CSRF token, and run through the pipeline via the port the composition
 * root provides; erasure ends the account and its sessions, so the buyer is signed out after it.
 */
import type { Context, Hono } from 'hono';
import { html, pageHeaders, readForm, type Html } from '../web/index.js';
import { messagePage } from './pages.js';

/** What the account page may ask of the core about the signed-in buyer. */
export interface BuyerDataPort {
  /** Everything kept about this email, as JSON. */
  exportOf(email: string): Promise<unknown>;
  /** Erase this email's data everywhere (its account and sessions included). */
  erase(email: string): Promise<void>;
}

export interface AccountDataDeps {
  port: BuyerDataPort;
  /** The signed-in account's email, or null. */
  signedInEmail(c: Context): Promise<string | null>;
  csrfOk(c: Context, form: Record<string, unknown>): boolean;
  expired(): Response;
  page(body: Html, opts: { status?: number; title: string; cookies?: string[] }): Response;
  /** The Set-Cookie that ends the account page's cookie. */
  signedOutCookie(): string;
}

/** The account page's card for the buyer's data: a download and an erase that asks for confirmation. */
export function accountDataCard(csrf: string): Html {
  const field = html`<input type="hidden" name="csrf" value="${csrf}">`;
  return html`<div class="card"><h2>Your data</h2><form method="post" action="/account/data/export">${field}<button class="secondary" type="submit">Download my data (JSON)</button></form>
<form method="post" action="/account/data/erase">${field}<p><label><input type="checkbox" name="confirm" value="yes" required> Erase my data at this business and close my account. Bookings keep their times and amounts, without my name. This cannot be undone.</label></p><button class="secondary" type="submit">Erase my data</button></form></div>`;
}

export function accountDataRoutes(pages: Hono, d: AccountDataDeps): void {
  pages.post('/account/data/export', async (c) => {
    const f = await readForm(c);
    const email = await d.signedInEmail(c);
    if (!email || !d.csrfOk(c, f)) return d.expired();
    const headers = new Headers(pageHeaders());
    headers.set('Content-Type', 'application/json; charset=utf-8');
    headers.set('Content-Disposition', 'attachment; filename="my-data.json"');
    return new Response(JSON.stringify(await d.port.exportOf(email), null, 2), { status: 200, headers });
  });
  pages.post('/account/data/erase', async (c) => {
    const f = await readForm(c);
    const email = await d.signedInEmail(c);
    if (!email || !d.csrfOk(c, f)) return d.expired();
    if (f.confirm !== 'yes')
      return d.page(
        messagePage({
          heading: 'Nothing was erased',
          text: 'Tick the box to confirm, then erase again from your account page.',
        }),
        {
          status: 400,
          title: 'Nothing was erased',
        },
      );
    await d.port.erase(email);
    return d.page(
      messagePage({
        heading: 'Your data was erased',
        text: 'Your account is closed and your name, email and phone were removed from every booking at this business.',
      }),
      {
        title: 'Data erased',
        cookies: [d.signedOutCookie()],
      },
    );
  });
}
