/**
 * The buyer's OAuth pages: sign-in, sign-up with an emailed code and consent inside an
 * authorization (the library's interactions), and the account page (linked assistants, removing
 * one, signing out, password reset, the buyer's own data). Split as the dashboard is: one file per
 * page group, each mounting its routes over one kit (`interaction-kit.ts`), written with the web kit
 * (one CSRF scheme, page headers, forms that post only to us and to the client's redirect origin).
 * This file only builds the kit and mounts the groups.
 */
import { Hono } from 'hono';
import { accountDataRoutes } from './account-data.js';
import { accountRoutes } from './account-page.js';
import { consentRoutes } from './consent-page.js';
import { pagesKit, type InteractionPagesOptions } from './interaction-kit.js';
import { INTERACTION_PATH } from './provider.js';
import { passwordResetRoutes } from './reset-pages.js';
import { signInRoutes } from './sign-in-pages.js';

const INTERACTION_PREFIX = `${INTERACTION_PATH}/`;

/** Whether `path` is one of these pages'. */
export function isInteractionPage(path: string): boolean {
  return path.startsWith(INTERACTION_PREFIX) || path === '/account' || path.startsWith('/account/');
}

export function createInteractionPages(o: InteractionPagesOptions): Hono {
  const pages = new Hono();
  // A form that cannot be read (or any fault) goes to the host, which answers with the door's refusal and logs it.
  pages.onError((err) => {
    throw err;
  });
  const k = pagesKit(o);
  signInRoutes(pages, k);
  consentRoutes(pages, k);
  accountRoutes(pages, k);
  passwordResetRoutes(pages, {
    resets: o.resets,
    csrf: k.csrfFor,
    csrfOk: k.csrfOk,
    expired: k.expired,
    page: k.page,
    tooMany: k.tooMany,
    address: k.addressOf,
    signedOutCookie: k.signedOutCookie,
  });
  if (o.buyerData) {
    accountDataRoutes(pages, {
      port: o.buyerData,
      signedInEmail: async (c) => {
        const id = await k.signedInAs(c);
        return id ? ((await k.accounts.byId(id))?.email ?? null) : null;
      },
      csrfOk: k.csrfOk,
      expired: k.expired,
      page: k.page,
      signedOutCookie: k.signedOutCookie,
    });
  }
  return pages;
}
