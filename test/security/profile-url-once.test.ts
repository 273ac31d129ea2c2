/**
 * Issue 40 item 3: every public call checks its caller's platform profile URL, and the URL was
 * parsed anew on every call though a platform sends the same one each time. Each URL is now parsed
 * once; the second check of it parses nothing and answers the same.
 */
import { afterEach, expect, test } from 'vitest';
import { checkProfileUrl } from '../../src/security/profile-url.js';

const RealURL = globalThis.URL;
let parsed = 0;

afterEach(() => {
  globalThis.URL = RealURL;
});

function countParses(): void {
  parsed = 0;
  globalThis.URL = class extends RealURL {
    constructor(...args: ConstructorParameters<typeof URL>) {
      super(...args);
      parsed++;
    }
  } as typeof URL;
}

test('a profile URL is parsed on its first check only, and answered the same after', () => {
  const url = `https://platform.example/profiles/once-${Date.now()}.json`;
  countParses();
  expect(checkProfileUrl(url, false)).toBeNull();
  expect(parsed).toBe(1);
  expect(checkProfileUrl(url, false)).toBeNull();
  expect(parsed).toBe(1);
});

test('the answers stay those of the check: per loopback rule, refusals included', () => {
  const local = `http://localhost:9/profile-${Date.now()}.json`;
  expect(checkProfileUrl(local, false)).toBe('must use https');
  expect(checkProfileUrl(local, true)).toBeNull();
  expect(checkProfileUrl(local, false)).toBe('must use https');
  expect(checkProfileUrl('not a url', false)).toBe('is not an absolute URL');
  expect(checkProfileUrl('not a url', false)).toBe('is not an absolute URL');
});
