/**
 * The authorization server library's storage, on our Store: every record (client, grant, code,
 * token, session, interaction) lives in the `oauth_records` table of SQLite or PostgreSQL, so any
 * process sharing the database honours a code, a refresh token or a revocation made by another.
 */
import type { errors as Errors } from 'oidc-provider';
import type { Store } from '../store/index.js';

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; accountId?: string; consumed?: number };


/**
 * An oidc-provider Adapter class over the store. Expiry uses wall-clock time, as the library does
 * for the `exp` it writes into each record.
 */
export function storeAdapter(store: Store, errors: typeof Errors, now: () => number = Date.now) {
  return class StoreAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      await store.transaction((tx) =>
        tx.oauth.upsert({
          model: this.model,
          id,
          payload,
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          userCode: payload.userCode ?? null,
          accountId: payload.accountId ?? null,
          expiresMs: typeof expiresIn === 'number' && expiresIn > 0 ? now() + expiresIn * 1000 : null,
        }),
      );
    }

    async find(id: string): Promise<Payload | undefined> {
      return shape(await store.read((tx) => tx.oauth.find(this.model, id, now())));
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return shape(await store.read((tx) => tx.oauth.findByUid(this.model, uid, now())));
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      return shape(await store.read((tx) => tx.oauth.findByUserCode(this.model, userCode, now())));
    }

    async consume(id: string): Promise<void> {
      // Atomic in the database: of two requests redeeming one code at once, only one gets here.
      const first = await store.transaction((tx) => tx.oauth.consume(this.model, id, now()));
      // The library's own error, so the token endpoint answers invalid_grant.
      if (!first) throw new errors.InvalidGrant(`${this.model} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      await store.transaction((tx) => tx.oauth.destroy(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.transaction((tx) => tx.oauth.revokeByGrantId(grantId));
    }
  };
}

function shape(r: { payload: Record<string, unknown>; consumedMs: number | null } | null): Payload | undefined {
  if (!r) return undefined;
  return r.consumedMs !== null ? { ...r.payload, consumed: Math.floor(r.consumedMs / 1000) } : r.payload;
}
