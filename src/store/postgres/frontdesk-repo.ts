/** The front desk's repository on PostgreSQL: the same tables and answers as on SQLite. */
import type { ClientNoteRow, FrontDeskRepo } from '../frontdesk-port.js';
import { CLIENT_NOTES_DDL, PERSONAL_TEXT_TABLES, personalTable } from '../shared/personal-tables.js';
import type { PgSession } from './session.js';

export const POSTGRES_FRONTDESK_MIGRATION = `${CLIENT_NOTES_DDL}
  UPDATE bookings SET end_ms = ((data::jsonb) #>> '{priv,end_ms}')::bigint;
`;

export function pgFrontDesk(s: PgSession): FrontDeskRepo {
  return {
    personalTables: PERSONAL_TEXT_TABLES.map((t) => t.name),
    async clientNote(key) {
      const rows = await s.rows<ClientNoteRow>(
        `SELECT client_key, note, updated_ms, updated_by FROM client_notes WHERE client_key = $1${s.forUpdate}`,
        [key],
      );
      return rows[0] ?? null;
    },
    async putClientNote(r) {
      await s.query(
        `INSERT INTO client_notes (client_key, note, updated_ms, updated_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (client_key) DO UPDATE SET note = excluded.note, updated_ms = excluded.updated_ms, updated_by = excluded.updated_by`,
        [r.client_key, r.note, r.updated_ms, r.updated_by],
      );
    },
    async deleteClientNote(key) {
      return ((await s.query('DELETE FROM client_notes WHERE client_key = $1', [key])).rowCount ?? 0) > 0;
    },
    async mentioning(name, needles, limit, afterKey) {
      if (needles.length === 0) return [];
      const t = personalTable(name);
      const args: unknown[] = [];
      const match = needles.map((n) => `strpos(lower(${t.column}), $${args.push(n.toLowerCase())}) > 0`).join(' OR ');
      const after =
        afterKey === undefined ? '' : `${t.key} > $${args.push(t.numericKey ? Number(afterKey) : afterKey)} AND `;
      const rows = await s.rows<{ k: string | number; text: string }>(
        `SELECT ${t.key} AS k, ${t.column} AS text FROM ${t.table} WHERE ${after}(${match}) ORDER BY ${t.key} LIMIT $${args.push(limit)}`,
        args,
      );
      return rows.map((r) => ({ key: String(r.k), text: r.text }));
    },
    async rewrite(name, key, text) {
      const t = personalTable(name);
      await s.query(`UPDATE ${t.table} SET ${t.column} = $1 WHERE ${t.key} = $2`, [
        text,
        t.numericKey ? Number(key) : key,
      ]);
    },
    async bookingsEnded(fromMs, beforeMs, limit) {
      return s.rows<{ id: string; end_ms: number }>(
        'SELECT id, end_ms FROM bookings WHERE end_ms >= $1 AND end_ms < $2 ORDER BY end_ms, id LIMIT $3',
        [fromMs, beforeMs, limit],
      );
    },
    async deleteAccount(accountId) {
      // oidc-provider's sessions name the account only inside their payload.
      const a = await s.query('DELETE FROM oauth_records WHERE account_id = $1 OR strpos(payload, $2) > 0', [
        accountId,
        JSON.stringify(accountId),
      ]);
      const b = await s.query('DELETE FROM buyer_bookings WHERE account_id = $1', [accountId]);
      const c = await s.query('DELETE FROM buyer_accounts WHERE id = $1', [accountId]);
      return (a.rowCount ?? 0) + (b.rowCount ?? 0) + (c.rowCount ?? 0);
    },
  };
}
