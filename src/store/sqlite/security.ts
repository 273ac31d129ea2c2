import type { SecurityRepo } from '../port.js';
import { CREDENTIAL_COLUMNS, toCredential } from '../shared/rows.js';
import type { Statements } from './statements.js';

export function sqliteSecurity(s: Statements): SecurityRepo {
  const putCredential = s.prepare(`INSERT INTO credentials (${CREDENTIAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const credential = s.prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE value_hash = ?`);
  const revoke = s.prepare('UPDATE credentials SET revoked = 1 WHERE resource_id = ?');
  const jtiGet = s.prepare('SELECT keep_until_ms FROM proof_jti WHERE jti = ?');
  const jtiPut = s.prepare(
    'INSERT INTO proof_jti (jti, keep_until_ms) VALUES (?, ?) ON CONFLICT (jti) DO UPDATE SET keep_until_ms = excluded.keep_until_ms',
  );
  const jtiPurge = s.prepare('DELETE FROM proof_jti WHERE keep_until_ms <= ?');
  const credentialPurge = s.prepare(
    'DELETE FROM credentials WHERE value_hash IN (SELECT value_hash FROM credentials WHERE expires_ms < ? LIMIT ?)',
  );
  const bindGet = s.prepare('SELECT profile FROM principal_bindings WHERE principal = ?');
  const bindPut = s.prepare(
    'INSERT INTO principal_bindings (principal, profile, bound_ms) VALUES (?, ?, ?) ON CONFLICT (principal) DO NOTHING',
  );
  return {
    async putCredential(c) {
      putCredential.run(
        c.value_hash,
        c.resource_kind,
        c.resource_id,
        c.jkt,
        c.principal,
        c.expires_ms,
        c.revoked ? 1 : 0,
      );
    },
    async credential(valueHash) {
      const r = credential.get(valueHash) as Record<string, unknown> | undefined;
      return r ? toCredential(r) : null;
    },
    async revokeCredentials(resourceId) {
      revoke.run(resourceId);
    },
    async claimJti(jti, nowMs, keepUntilMs) {
      // One connection, serial transactions: a read then a write cannot interleave with another call.
      const r = jtiGet.get(jti) as { keep_until_ms: number } | undefined;
      if (r && r.keep_until_ms > nowMs) return false;
      jtiPut.run(jti, keepUntilMs);
      return true;
    },
    async boundProfile(principal) {
      const r = bindGet.get(principal) as { profile: string } | undefined;
      return r ? r.profile : null;
    },
    async bindProfile(principal, profile, nowMs) {
      bindPut.run(principal, profile, nowMs);
    },
    async purge(nowMs) {
      jtiPurge.run(nowMs);
    },
    async purgeCredentials(expiredBeforeMs, limit) {
      return credentialPurge.run(expiredBeforeMs, limit).changes;
    },
  };
}
