/**
 * The platform the conformance suite plays is the client library's: its profile variants, fetched
 * over HTTP as a business fetches them, are the library identity's own document (its proof key,
 * its signing key, its webhook_url), each with only the `usp` declaration the variant needs. One
 * platform identity in the tree, not two.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PlatformIdentity } from '../../src/client/index.js';
import { NEWER_VERSION, startPlatform, type SuitePlatform } from '../../src/conformance/platform.js';

const BUSINESS = {
  usp: {
    version: '2026-08-20',
    capabilities: {
      'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }],
      'dev.usp-protocol.services.bookings': [{ version: '2026-08-20' }],
    },
  },
};

let platform: SuitePlatform;
beforeAll(async () => {
  platform = await startPlatform(BUSINESS);
});
afterAll(async () => {
  await platform?.close();
});

const fetchProfile = async (url: string) => (await fetch(url)).json() as Promise<Record<string, any>>;

describe("the suite's platform", () => {
  test("publishes the library identity's document, its keys and signing keys, in every variant", async () => {
    expect(platform.identity).toBeInstanceOf(PlatformIdentity);
    expect(platform.key).toBe(platform.identity.popKey);
    expect(platform.identity.profileUrl).toBe(platform.profile);
    const doc = platform.identity.profileDocument() as Record<string, any>;
    const normal = await fetchProfile(platform.profile);
    expect(normal).toEqual(doc);
    expect(normal.keys).toContainEqual(expect.objectContaining({ ...platform.key.publicJwk, alg: 'EdDSA' }));
    expect(normal.signing_keys).toEqual([
      expect.objectContaining({
        ...platform.identity.signing.publicJwk,
        kid: platform.identity.signing.kid,
        alg: 'ES256',
      }),
    ]);
    expect(normal.webhook_url).toBe(platform.webhookUrl);
    expect(Object.keys(normal.usp.capabilities).sort()).toEqual(Object.keys(BUSINESS.usp.capabilities).sort());

    const newer = await fetchProfile(platform.variant('newer'));
    expect(newer).toEqual({ ...doc, usp: { ...doc.usp, version: NEWER_VERSION } });
    const none = await fetchProfile(platform.variant('no-capabilities'));
    expect(none).toEqual({ ...doc, usp: { ...doc.usp, capabilities: {} } });
  });
});
