/**
 * The buyer's OAuth pages are split as the dashboard is: one file per page group, each mounting its
 * own routes (sign-in and sign-up inside an authorization, consent, the account page, password
 * reset, the account's data), over one kit (`interaction-kit.ts`: the page response, the CSRF
 * scheme, cookies, the interaction lookup). `interaction-pages.ts` only builds the kit and mounts
 * the groups: it answers no route itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const OAUTH = join(import.meta.dirname, '..', '..', 'src', 'oauth');
const read = (file: string) => readFileSync(join(OAUTH, file), 'utf8');
/** The routes a file answers itself: `pages.get('/x'` / `pages.post(\`${…}\``. */
const routesOf = (text: string) =>
  [...text.matchAll(/\bpages\.(get|post)\(\s*(['`][^'`]*['`])/g)].map((m) => `${m[1].toUpperCase()} ${m[2]}`);

describe('the OAuth pages are one file per page group', () => {
  test('interaction-pages.ts mounts the groups and answers no route itself', () => {
    expect(routesOf(read('interaction-pages.ts'))).toEqual([]);
  });

  test('each group answers its own routes', () => {
    expect(routesOf(read('sign-in-pages.ts'))).toEqual([
      'GET `${INTERACTION_PATH}/:uid`',
      'POST `${INTERACTION_PATH}/:uid/login`',
      'GET `${INTERACTION_PATH}/:uid/register`',
      'POST `${INTERACTION_PATH}/:uid/register`',
      'POST `${INTERACTION_PATH}/:uid/verify`',
    ]);
    expect(routesOf(read('consent-page.ts'))).toEqual(['POST `${INTERACTION_PATH}/:uid/consent`']);
    expect(routesOf(read('account-page.ts'))).toEqual([
      "GET '/account'",
      "GET '/account/register'",
      "POST '/account/login'",
      "POST '/account/revoke'",
      "POST '/account/logout'",
    ]);
  });
});
