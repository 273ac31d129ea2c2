import type { SecurityRepo } from '../port.js';
import { CREDENTIAL_COLUMNS, toCredential } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgSecurity(s: PgSession): SecurityRepo {
  return {
    async putCredential(c) {
      await s.write(`INSERT INTO credentials (${CREDENTIAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        c.value_hash,
        c.resource_kind,
        c.resource_id,
        c.jkt,
        c.principal,
        c.expires_ms,
        c.revoked,
      ]);
    },
    async credential(valueHash) {
      const r = await s.rows(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE value_hash = $1`, [valueHash]);
      return r.length > 0 ? toCredential(r[0]) : null;
    },
    async revokeCredentials(resourceId) {
      await s.query('UPDATE credentials SET revoked = TRUE WHERE resource_id = $1', [resourceId]);
    },
    async claimJti(jti, nowMs, keepUntilMs) {
      // Inserted, or replaced a record that had expired: the proof is fresh. One statement, so two
      // processes receiving the same proof at once cannot both accept it.
      const r = await s.query(
        `INSERT INTO proof_jti (jti, keep_until_ms) VALUES ($1, $2)
         ON CONFLICT (jti) DO UPDATE SET keep_until_ms = EXCLUDED.keep_until_ms WHERE proof_jti.keep_until_ms <= $3
         RETURNING jti`,
        [jti, keepUntilMs, nowMs],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async boundProfile(principal) {
      const r = await s.rows<{ profile: string }>('SELECT profile FROM principal_bindings WHERE principal = $1', [
        principal,
      ]);
      return r.length > 0 ? r[0].profile : null;
    },
    async bindProfile(principal, profile, nowMs) {
      await s.query(
        'INSERT INTO principal_bindings (principal, profile, bound_ms) VALUES ($1, $2, $3) ON CONFLICT (principal) DO NOTHING',
        [principal, profile, nowMs],
      );
    },
    async purge(nowMs) {
      await s.query('DELETE FROM proof_jti WHERE keep_until_ms <= $1', [nowMs]);
    },
    async purgeCredentials(expiredBeforeMs, limit) {
      const r = await s.query(
        'DELETE FROM credentials WHERE value_hash IN (SELECT value_hash FROM credentials WHERE expires_ms < $1 LIMIT $2)',
        [expiredBeforeMs, limit],
      );
      return r.rowCount ?? 0;
    },
  };
}
