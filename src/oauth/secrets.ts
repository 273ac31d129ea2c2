/**
 * The authorization server's secrets, generated once and kept in the store (like the webhook
 * signing keys): the private JWK it signs ID tokens with and the keys its cookies are signed with.
 * Every process on one database uses the same ones, so a cookie or token made by one is valid at all.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../store/index.js';

const KV_KEY = 'oauth:secrets';

export interface OAuthSecrets {
  jwks: { keys: Array<Record<string, unknown>> };
  cookieKeys: string[];
}

export async function loadOAuthSecrets(store: Store): Promise<OAuthSecrets> {
  // Get-or-create in one transaction (the read locks the key on PostgreSQL): two processes starting
  // together agree on one set.
  return store.transaction(async (tx) => {
    const raw = await tx.kv.get(KV_KEY);
    if (raw) return JSON.parse(raw) as OAuthSecrets;
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const secrets: OAuthSecrets = {
      jwks: { keys: [{ ...jwk, kid: randomUUID(), alg: 'ES256', use: 'sig' }] },
      cookieKeys: [randomBytes(32).toString('base64url')],
    };
    await tx.kv.set(KV_KEY, JSON.stringify(secrets));
    return secrets;
  });
}
