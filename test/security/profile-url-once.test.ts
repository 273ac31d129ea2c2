/**
 * Issue 40 item 3: every call naming a platform profile had its URL parsed (`new URL`) to check it
 * is an acceptable outbound URL, though a platform sends the same profile on every call. The verdict
 * is kept per URL and loopback rule: the second check of the same URL parses nothing and says the same.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { checkProfileUrl } from '../../src/security/index.js';

/** URLs parsed while `fn` runs. */
function parsed(fn: () => void): number {
  let count = 0;
  const Real = URL;
  vi.stubGlobal(
    'URL',
    class extends Real {
      constructor(url: string | URL, base?: string | URL) {
        super(url, base);
        count++;
      }
    },
  );
  try {
    fn();
  } finally {
    vi.unstubAllGlobals();
  }
  return count;
}

afterEach(() => vi.unstubAllGlobals());

test('a profile URL is parsed once, its verdict kept', () => {
  const url = `https://platform-${Math.random().toString(36).slice(2)}.example/profile.json`;
  expect(parsed(() => expect(checkProfileUrl(url, false)).toBeNull())).toBe(1);
  expect(parsed(() => expect(checkProfileUrl(url, false)).toBeNull())).toBe(0);
});

test('the verdict is per loopback rule, and refusals are kept too', () => {
  const local = `http://127.0.0.1:${1024 + Math.floor(Math.random() * 60000)}/profile.json`;
  expect(checkProfileUrl(local, false)).toBe('must use https');
  expect(checkProfileUrl(local, true)).toBeNull();
  expect(parsed(() => expect(checkProfileUrl(local, false)).toBe('must use https'))).toBe(0);
  expect(parsed(() => expect(checkProfileUrl(local, true)).toBeNull())).toBe(0);
  const bad = `not a url ${Math.random()}`;
  expect(checkProfileUrl(bad, true)).toBe('is not an absolute URL');
  expect(parsed(() => expect(checkProfileUrl(bad, true)).toBe('is not an absolute URL'))).toBe(0);
});

test('the kept verdicts are bounded: the oldest is forgotten first', () => {
  const first = `https://first-${Math.random().toString(36).slice(2)}.example/p.json`;
  checkProfileUrl(first, false);
  for (let i = 0; i < 300; i++) checkProfileUrl(`https://p${i}-${Math.random().toString(36).slice(2)}.example/`, false);
  expect(parsed(() => expect(checkProfileUrl(first, false)).toBeNull())).toBe(1);
});
