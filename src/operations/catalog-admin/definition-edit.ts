/**
 * One edit of the stored business definition, shared by the admin operations on services, resources
 * and locations: read the stored rows under the definition's lock, apply the change to the business
 * file they make, check the whole file with the domain's one check (the file's messages, each naming
 * its field relative to the object edited), refuse a change that would strand live bookings unless
 * forced (a forced change names them and changes none), store the rows with a new version and
 * republish the catalog, raising its events.
 */
import {
  checkBusinessDocument,
  formatInstant,
  selfResourceId,
  strandedBookings,
  warningMessage,
  type BookedInterval,
  type BusinessDef,
  type BusinessIssue,
  type Message,
  type OtherClaim,
  type StrandedBooking,
} from '../../domain/index.js';
import type { OperationContext } from '../core/context.js';
import { requireBusiness } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { publishCatalog } from '../catalog-sync.js';
import { servedCatalog } from '../business.js';
import { importDefinition, storedDefinition } from '../live-business.js';
import { documentOf } from './definition-document.js';
import { calendarUrlIssues, syncPushTargets } from '../calendars/resource-calendars.js';

type Json = Record<string, unknown>;

/** The business file's list an edit works on, and what it changes there. */
export interface DefinitionChange {
  /** `services`, `resources` or `business.locations`. */
  list: 'services' | 'resources' | 'locations';
  /** The id of the object edited; absent for a new object (appended). */
  id?: string;
  /** The object as it will be, from the object as it is (undefined for a new one) and the list it is in. */
  apply(current: Json | undefined, list: readonly Json[]): Json;
  /** Store the change even when it strands bookings (they are named in a warning and left as they are). */
  force?: boolean;
}

export interface DefinitionEdit {
  def: BusinessDef;
  /** The object as stored after the edit. */
  object: Json;
  messages: Message[];
}

/** How far ahead live bookings are looked for (the longest booking window a business plausibly publishes). */
const LOOKAHEAD_MS = 3 * 366 * 86_400_000;
const LIVE = new Set(['pending', 'requires_action', 'confirmed']);

function listOf(doc: Json, list: DefinitionChange['list']): Json[] {
  return (list === 'locations' ? (doc.business as Json).locations : doc[list]) as Json[];
}

const WHAT = { services: 'service', resources: 'resource', locations: 'location' } as const;

/** Issues about the edited object named by their field inside it; others keep their whole path. */
function relative(issues: readonly BusinessIssue[], prefix: string): Array<{ field: string; message: string }> {
  return issues.map((i) => {
    if (i.path === prefix) return { field: '(object)', message: i.message };
    if (i.path.startsWith(`${prefix}.`) || i.path.startsWith(`${prefix}[`))
      return { field: i.path.slice(prefix.length).replace(/^\./, ''), message: i.message };
    return { field: i.path, message: i.message };
  });
}

async function liveBookings(
  ctx: OperationContext,
  def: BusinessDef,
): Promise<{ bookings: BookedInterval[]; claims: OtherClaim[]; names: Map<string, string> }> {
  const resourceIds = [
    ...def.resources.map((r) => r.id),
    ...def.services.filter((s) => s.requirements.length === 0).map((s) => selfResourceId(s.id)),
  ];
  const rows = await ctx.tx.claims.active(resourceIds, ctx.now, ctx.now + LOOKAHEAD_MS, ctx.now);
  const claims: OtherClaim[] = rows.map((c) => ({
    resource_id: c.resource_id,
    owner_id: c.owner_id,
    start_ms: c.start_ms,
    end_ms: c.end_ms,
  }));
  const bookings: BookedInterval[] = [];
  const names = new Map<string, string>();
  for (const owner of new Set(rows.filter((c) => !c.is_hold).map((c) => c.owner_id))) {
    const rec = await ctx.tx.bookings.get(owner);
    if (!rec || !LIVE.has(rec.booking.status) || rec.priv.start_ms < ctx.now) continue;
    bookings.push({
      id: rec.booking.id,
      service_id: rec.booking.service_id,
      start_ms: rec.priv.start_ms,
      end_ms: rec.priv.end_ms,
      resource_ids: rec.priv.resource_ids,
    });
    names.set(
      rec.booking.id,
      `${rec.booking.id} (${rec.booking.service_name}, ${rec.booking.status}, starts ${formatInstant(rec.priv.start_ms, def.business.timezone)})`,
    );
  }
  bookings.sort((a, b) => a.start_ms - b.start_ms);
  return { bookings, claims, names };
}

const REASON: Record<StrandedBooking['reason'], (s: StrandedBooking) => string> = {
  hours: (s) => `outside the new hours${s.resource_id ? ` of ${s.resource_id}` : ''}`,
  resource_removed: (s) => `${s.resource_id ?? 'its service'} would no longer deliver it`,
  duration: (s) => `the longer appointment would run into ${s.runs_into} on ${s.resource_id}`,
};

/**
 * One edit of the business file as a whole (the details, the settings, a category across services):
 * `apply` changes the document in place and answers the paths of the parts it edited, which the
 * file's issues are named relative to. Checked, guarded against stranding and stored like an edit of
 * one object.
 */
export interface DocumentChange {
  apply(doc: Json): string[];
  force?: boolean;
  /** Issues beyond the file's (its calendars' addresses against the outbound rule), once the file checks. */
  more?(): Array<{ field: string; message: string }>;
  /** The edit touched resources: their calendar push targets move with it. */
  resources?: boolean;
}

export async function editDefinition(ctx: OperationContext, change: DefinitionChange): Promise<DefinitionEdit> {
  const what = WHAT[change.list];
  let object: Json = {};
  const { def, messages } = await editDocument(ctx, {
    force: change.force,
    resources: change.list === 'resources',
    more: () => (change.list === 'resources' ? calendarUrlIssues(object, ctx.biz.allowLoopbackUrls) : []),
    apply(doc) {
      const list = listOf(doc, change.list);
      let at = change.id === undefined ? -1 : list.findIndex((o) => o.id === change.id);
      if (change.id !== undefined && at < 0) {
        throw invalidRequest(
          `${what}_id: no ${what} ${change.id} in this business`,
          [{ field: `${what}_id`, message: `unknown ${what}` }],
          'not_found',
        );
      }
      object = change.apply(at < 0 ? undefined : list[at], list);
      if (change.id !== undefined && object.id !== change.id) {
        throw invalidRequest(`id: a ${what}'s id cannot change`, [{ field: 'id', message: 'cannot change' }]);
      }
      if (at < 0) {
        at = list.length;
        list.push(object);
      } else list[at] = object;
      return [`${change.list === 'locations' ? 'business.locations' : change.list}[${at}]`];
    },
  });
  const saved = (change.list === 'locations' ? def.business.locations : def[change.list]) as unknown as Json[];
  return { def, object: saved.find((o) => o.id === object.id) ?? object, messages };
}

/** Issues named relative to the first edited part they fall in, each said once. */
function namedIssues(
  issues: readonly BusinessIssue[],
  prefixes: readonly string[],
): Array<{ field: string; message: string }> {
  const seen = new Set<string>();
  const out: Array<{ field: string; message: string }> = [];
  for (const issue of issues) {
    const prefix =
      prefixes.find((p) => issue.path === p || issue.path.startsWith(`${p}.`) || issue.path.startsWith(`${p}[`)) ?? '';
    const [e] = prefix ? relative([issue], prefix) : [{ field: issue.path || '(file)', message: issue.message }];
    const key = `${e.field}\n${e.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

export async function editDocument(
  ctx: OperationContext,
  change: DocumentChange,
): Promise<{ def: BusinessDef; messages: Message[] }> {
  requireBusiness(ctx);
  await ctx.tx.lock(['definition']);
  const stored = await storedDefinition(ctx.tx);
  const before = stored?.def ?? ctx.biz.def;
  const doc = structuredClone(documentOf(stored?.entries ?? []) ?? (before as unknown as Json));
  const prefixes = change.apply(doc);

  const checked = checkBusinessDocument(doc);
  if (!checked.ok) {
    const errors = namedIssues(checked.issues, prefixes);
    throw invalidRequest(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  }
  const urlIssues = change.more?.() ?? [];
  if (urlIssues.length > 0)
    throw invalidRequest(urlIssues.map((e) => `${e.field}: ${e.message}`).join('; '), urlIssues);
  const { bookings, claims, names } = await liveBookings(ctx, before);
  const stranded = strandedBookings(before, checked.def, bookings, claims);
  const named = stranded.map((s) => `${names.get(s.booking_id) ?? s.booking_id}: ${REASON[s.reason](s)}`);
  if (stranded.length > 0 && !change.force) {
    throw invalidRequest(
      `This change would strand ${stranded.length === 1 ? '1 booking' : `${stranded.length} bookings`}: ${named.join('; ')}. Move or cancel ${stranded.length === 1 ? 'it' : 'them'} first, or send force: true to keep ${stranded.length === 1 ? 'it' : 'them'} as booked.`,
      stranded.map((s, i) => ({ field: `bookings.${s.booking_id}`, message: named[i] })),
      'bookings_stranded',
    );
  }
  await importDefinition(ctx.tx, checked.def);
  if (change.resources) await syncPushTargets(ctx.tx, checked.def);
  // The catalog as this business serves it (a service it cannot take now stays `suspended`, with why).
  await publishCatalog(ctx.tx, servedCatalog(checked.def, ctx.biz), ctx.now, (event, serviceId, data) =>
    ctx.emit({ event, orderKey: serviceId, principal: null, payload: { service_id: serviceId, data } }),
  );
  const messages =
    stranded.length > 0
      ? [
          warningMessage(
            'bookings_overlap',
            `Stored with force: ${named.length === 1 ? '1 booking stays' : `${named.length} bookings stay`} as booked: ${named.join('; ')}. Reschedule or cancel ${named.length === 1 ? 'it' : 'them'}, or tell the buyer${named.length === 1 ? '' : 's'}.`,
          ),
        ]
      : [];
  return { def: checked.def, messages };
}
