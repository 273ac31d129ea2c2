/** The front desk's repository on SQLite: client notes and the reach into personal-data tables. */
import type Database from 'better-sqlite3';
import type { ClientNoteRow, FrontDeskRepo } from '../frontdesk-port.js';
import { CLIENT_NOTES_DDL, PERSONAL_TEXT_TABLES, personalTable } from '../shared/personal-tables.js';

export const SQLITE_FRONTDESK_MIGRATION = `${CLIENT_NOTES_DDL}
  UPDATE bookings SET end_ms = json_extract(data, '$.priv.end_ms');
`;

export function sqliteFrontDesk(db: Database.Database): FrontDeskRepo {
  const q = {
    note: db.prepare('SELECT client_key, note, updated_ms, updated_by FROM client_notes WHERE client_key = ?'),
    putNote: db.prepare(
      `INSERT INTO client_notes (client_key, note, updated_ms, updated_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (client_key) DO UPDATE SET note = excluded.note, updated_ms = excluded.updated_ms, updated_by = excluded.updated_by`,
    ),
    deleteNote: db.prepare('DELETE FROM client_notes WHERE client_key = ?'),
    ended: db.prepare('SELECT id, end_ms FROM bookings WHERE end_ms >= ? AND end_ms < ? ORDER BY end_ms, id LIMIT ?'),
    oauthOf: db.prepare(`DELETE FROM oauth_records WHERE account_id = ? OR instr(payload, ?) > 0`),
    links: db.prepare('DELETE FROM buyer_bookings WHERE account_id = ?'),
    account: db.prepare('DELETE FROM buyer_accounts WHERE id = ?'),
  };
  return {
    personalTables: PERSONAL_TEXT_TABLES.map((t) => t.name),
    async clientNote(key) {
      return (q.note.get(key) as ClientNoteRow | undefined) ?? null;
    },
    async putClientNote(r) {
      q.putNote.run(r.client_key, r.note, r.updated_ms, r.updated_by);
    },
    async deleteClientNote(key) {
      return q.deleteNote.run(key).changes > 0;
    },
    async mentioning(name, needles, limit, afterKey) {
      if (needles.length === 0) return [];
      const t = personalTable(name);
      const match = needles.map(() => `instr(lower(${t.column}), ?) > 0`).join(' OR ');
      const after = afterKey === undefined ? '' : `${t.key} > ? AND `;
      const args: unknown[] = afterKey === undefined ? [] : [t.numericKey ? Number(afterKey) : afterKey];
      const rows = db
        .prepare(
          `SELECT ${t.key} AS k, ${t.column} AS text FROM ${t.table} WHERE ${after}(${match}) ORDER BY ${t.key} LIMIT ?`,
        )
        .all(...args, ...needles.map((n) => n.toLowerCase()), limit) as Array<{ k: string | number; text: string }>;
      return rows.map((r) => ({ key: String(r.k), text: r.text }));
    },
    async rewrite(name, key, text) {
      const t = personalTable(name);
      db.prepare(`UPDATE ${t.table} SET ${t.column} = ? WHERE ${t.key} = ?`).run(
        text,
        t.numericKey ? Number(key) : key,
      );
    },
    async bookingsEnded(fromMs, beforeMs, limit) {
      return q.ended.all(fromMs, beforeMs, limit) as Array<{ id: string; end_ms: number }>;
    },
    async deleteAccount(accountId) {
      // oidc-provider's sessions name the account only inside their payload.
      const n = q.oauthOf.run(accountId, JSON.stringify(accountId)).changes + q.links.run(accountId).changes;
      return n + q.account.run(accountId).changes;
    },
  };
}
