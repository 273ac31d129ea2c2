/**
 * A buyer's personal data, wherever the business keeps it: a list of holders, each able to export
 * what it keeps about a person and to erase it. Export and erasure (and retention, which erases the
 * people of old bookings) go through the whole list, so a new place that keeps buyers' data joins
 * all three by being added here, or, for a table of JSON text, to PERSONAL_TEXT_TABLES in the store
 * (src/store/shared/personal-tables.ts).
 */
import {
  erasePerson,
  isoUtc,
  mentionsPerson,
  nameMatches,
  personNeedles,
  type BookingRecord,
  type Person,
} from '../../domain/index.js';
import type { OperationContext } from '../core/context.js';

/** What one export or erasure is about: a person, everywhere, or only where one booking is concerned (retention). */
export interface PersonalScope {
  person: Person;
  /** Only rows about this booking (retention erases one old booking's people, not their newer bookings). */
  bookingId?: string;
  /**
   * The bookings and waitlist entries the person is in, found before any holder rewrites them: the
   * mail about them (to the booking's other person too) is erased by these ids as well as by address.
   */
  subjects?: readonly string[];
}

export interface PersonalDataHolder {
  /** The member of the export this holder answers under. */
  name: string;
  export(ctx: OperationContext, scope: PersonalScope): Promise<unknown[]>;
  /** Replace or delete what names the person; returns how many records changed. */
  erase(ctx: OperationContext, scope: PersonalScope): Promise<number>;
}

const PAGE = 200;

function parseText(text: string): unknown {
  try {
    const v = JSON.parse(text) as unknown;
    // A webhook delivery's body is the JSON text of the event: read it as the event.
    return typeof v === 'string' ? JSON.parse(v) : v;
  } catch {
    return text;
  }
}

/** Every row of a JSON-text table that names the person (and the booking, when the scope has one). */
async function* rowsOf(
  ctx: OperationContext,
  table: string,
  scope: PersonalScope,
): AsyncGenerator<{ key: string; text: string; value: unknown }> {
  const needles = personNeedles(scope.person);
  let after: string | undefined;
  for (;;) {
    const page = await ctx.tx.frontdesk.mentioning(table, needles, PAGE, after);
    for (const r of page) {
      if (scope.bookingId && !r.text.includes(scope.bookingId)) continue;
      const value = parseText(r.text);
      if (mentionsPerson(value, scope.person)) yield { ...r, value };
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1].key;
  }
}

/** A table of JSON text (bookings, waitlist entries, holds, outbox events, deliveries, stored responses, payment jobs). */
function textHolder(table: string): PersonalDataHolder {
  return {
    name: table,
    async export(ctx, scope) {
      const out: unknown[] = [];
      for await (const r of rowsOf(ctx, table, scope)) out.push(r.value);
      return out;
    },
    async erase(ctx, scope) {
      const changed: Array<{ key: string; text: string }> = [];
      for await (const r of rowsOf(ctx, table, scope)) {
        const next = erasePerson(r.value, scope.person);
        if (!next.changed) continue;
        // A delivery's body is kept as the JSON text it is sent as.
        const wasString = typeof JSON.parse(r.text) === 'string';
        changed.push({
          key: r.key,
          text: wasString ? JSON.stringify(JSON.stringify(next.value)) : JSON.stringify(next.value),
        });
      }
      for (const c of changed) await ctx.tx.frontdesk.rewrite(table, c.key, c.text);
      return changed.length;
    },
  };
}

/** The keys the business's private note about a person is kept under: their email, their phone's digits. */
export function clientKeys(p: Person): string[] {
  return [p.email ? `email:${p.email}` : null, p.phone ? `phone:${p.phone}` : null].filter(
    (k): k is string => k !== null,
  );
}

const clientNotes: PersonalDataHolder = {
  name: 'client_notes',
  async export(ctx, scope) {
    if (scope.bookingId) return [];
    const out: unknown[] = [];
    for (const k of clientKeys(scope.person)) {
      const n = await ctx.tx.frontdesk.clientNote(k);
      if (n) out.push({ note: n.note, updated_at: isoUtc(n.updated_ms) });
    }
    return out;
  },
  async erase(ctx, scope) {
    if (scope.bookingId) return 0;
    let n = 0;
    for (const k of clientKeys(scope.person)) if (await ctx.tx.frontdesk.deleteClientNote(k)) n++;
    return n;
  },
};

/**
 * The mail outbox: messages to the person lose the address and contents, and those about their
 * bookings and entries sent to someone else (the booking's other person) lose what names them;
 * whichever of them was not yet sent is canceled.
 */
const mailMessages: PersonalDataHolder = {
  name: 'mail_messages',
  async export(ctx, scope) {
    if (!scope.person.email) return [];
    const rows = await ctx.tx.mail.forRecipient(scope.person.email);
    return rows
      .filter((m) => !scope.bookingId || m.subject_id === scope.bookingId)
      .map((m) => ({
        kind: m.kind,
        about: m.subject_id,
        status: m.status,
        created_at: isoUtc(m.created_ms),
        sent_at: m.sent_ms === null ? null : isoUtc(m.sent_ms),
        content: m.payload,
      }));
  },
  async erase(ctx, scope) {
    let n = scope.person.email ? await ctx.tx.mail.eraseRecipient(scope.person.email, scope.bookingId) : 0;
    for (const subject of scope.subjects ?? (scope.bookingId ? [scope.bookingId] : [])) {
      for (const m of await ctx.tx.mail.forSubject(subject)) {
        const next = erasePerson(m.payload, scope.person);
        if (!next.changed) continue;
        await ctx.tx.mail.scrub(m.id, next.value);
        n++;
      }
    }
    return n;
  },
};

const buyerAccount: PersonalDataHolder = {
  name: 'account',
  async export(ctx, scope) {
    if (scope.bookingId || !scope.person.email) return [];
    const a = await ctx.tx.accounts.byEmail(scope.person.email);
    if (!a) return [];
    const links = await ctx.tx.accounts.bookings(a.id, 1000);
    const sessions = await ctx.tx.oauth.byAccount('Grant', a.id, ctx.now);
    return [
      {
        id: a.id,
        email: a.email,
        name: a.name,
        phone: a.phone,
        created_at: isoUtc(a.created_ms),
        booking_ids: links.map((l) => l.bookingId),
        linked_assistants: sessions.map((g) => ({ grant_id: g.id, client_id: g.payload.clientId ?? null })),
      },
    ];
  },
  async erase(ctx, scope) {
    if (scope.bookingId || !scope.person.email) return 0;
    const a = await ctx.tx.accounts.byEmail(scope.person.email);
    return a ? ctx.tx.frontdesk.deleteAccount(a.id) : 0;
  },
};

/** Every holder of personal data, in the order an export lists them: the store's tables of JSON text, the mail outbox, the client notes, the account. */
export function personalDataHolders(ctx: OperationContext): PersonalDataHolder[] {
  return [...ctx.tx.frontdesk.personalTables.map(textHolder), mailMessages, clientNotes, buyerAccount];
}

/** Everything kept about the person, by holder. */
export async function exportPerson(ctx: OperationContext, scope: PersonalScope): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const h of personalDataHolders(ctx)) out[h.name] = await h.export(ctx, scope);
  return out;
}

/** Erase the person from every holder; how many records changed, by holder (no personal data in it). */
export async function erasePersonEverywhere(
  ctx: OperationContext,
  scope: PersonalScope,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const withSubjects = { ...scope, subjects: scope.subjects ?? (await subjectsOf(ctx, scope)) };
  for (const h of personalDataHolders(ctx)) out[h.name] = await h.erase(ctx, withSubjects);
  return out;
}

/** The ids of the bookings and waitlist entries the person is in (only the scope's booking, for retention). */
async function subjectsOf(ctx: OperationContext, scope: PersonalScope): Promise<string[]> {
  if (scope.bookingId) return [scope.bookingId];
  const ids: string[] = [];
  for await (const r of rowsOf(ctx, 'bookings', scope)) ids.push(r.key);
  for await (const r of rowsOf(ctx, 'waitlist_entries', scope)) ids.push(r.key);
  return ids;
}

/** The person's bookings (as buyer or recipient), newest start first. */
export async function bookingsOfPerson(ctx: OperationContext, person: Person): Promise<BookingRecord[]> {
  const out: BookingRecord[] = [];
  for await (const r of rowsOf(ctx, 'bookings', { person })) out.push(r.value as BookingRecord);
  return out.sort((a, b) => b.priv.start_ms - a.priv.start_ms);
}

/**
 * Every booking whose buyer or recipient has a name containing the query (case and accents
 * ignored). Names cannot be narrowed in SQL without folding accents there, so every booking row is
 * read a page at a time (the needle is a member every booking has) and matched here.
 */
export async function bookingsByName(ctx: OperationContext, query: string): Promise<BookingRecord[]> {
  const out: BookingRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await ctx.tx.frontdesk.mentioning('bookings', ['"first_name"'], PAGE, after);
    for (const r of page) {
      const rec = parseText(r.text) as BookingRecord;
      const b = rec?.booking;
      if (b && (nameMatches(b.buyer ?? {}, query) || (b.recipient && nameMatches(b.recipient, query)))) out.push(rec);
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1].key;
  }
  return out.sort((a, b) => b.priv.start_ms - a.priv.start_ms);
}
