/**
 * The authorization server library's storage, on our Store: every record (client, grant, code,
 * token, session, interaction) lives in the `oauth_records` table of SQLite or PostgreSQL, so any
 * process sharing the database honours a code, a refresh token or a revocation made by another.
 */
import type { errors as Errors } from 'oidc-provider';
import type { Store } from '../store/index.js';

type Payload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  userCode?: string;
  accountId?: string;
  clientId?: string;
  consumed?: number;
};

/** What the adapter adds to the records it writes, beyond the library's own fields. */
export interface AdapterHooks {
  /**
   * The owner and expiry of a client record being written (a dynamic registration): the owner is
   * kept in the record's owner column (`accountId`, unused by clients), so registrations per
   * registrant can be counted; undefined writes the record as the library asked.
   */
  newClient?: (id: string) => { owner: string; expiresMs: number } | undefined;
}

/** The records whose writing means their client completed a grant: it is kept from then on. */
const ISSUED_TOKENS = new Set(['AccessToken', 'ClientCredentials']);

/**
 * An oidc-provider Adapter class over the store. Expiry uses wall-clock time, as the library does
 * for the `exp` it writes into each record.
 */
export function storeAdapter(
  store: Store,
  errors: typeof Errors,
  now: () => number = () => Date.now(),
  hooks: AdapterHooks = {},
) {
  return class StoreAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const client = this.model === 'Client' ? hooks.newClient?.(id) : undefined;
      await store.transaction(async (tx) => {
        await tx.oauth.upsert({
          model: this.model,
          id,
          payload,
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          userCode: payload.userCode ?? null,
          accountId: client?.owner ?? payload.accountId ?? null,
          expiresMs: client
            ? client.expiresMs
            : typeof expiresIn === 'number' && expiresIn > 0
              ? now() + expiresIn * 1000
              : null,
        });
        // A registered client that never completes a grant expires; its first token keeps it.
        if (ISSUED_TOKENS.has(this.model) && typeof payload.clientId === 'string') {
          const c = await tx.oauth.find('Client', payload.clientId, now());
          if (c && c.expiresMs !== null) await tx.oauth.upsert({ ...c, expiresMs: null });
        }
      });
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
