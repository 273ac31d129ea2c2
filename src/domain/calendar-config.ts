/**
 * The calendars a resource is busy in, as the business file lists them: an iCalendar address (the
 * secret address Google, Outlook and Apple publish for a calendar) or a CalDAV calendar collection,
 * whose password or token is named by an environment variable, never written in the file. A CalDAV
 * calendar marked `write` also receives the resource's bookings as events.
 *
 * Whoever edits the business (a dashboard user, the admin key, the business file) chooses both the
 * calendar's URL and the variable whose value is sent there as a password, so the variable can only
 * be one the operator set aside for this business's calendars: its name starts with
 * `USP_CALENDAR_SECRET_<BUSINESS>__` (`calendarSecretPrefix`), so on a deployment hosting many
 * businesses one business cannot name another's secret. Any other name (`STRIPE_SECRET_KEY`, the
 * database URL, another business's calendar secret) is refused at every input (the source's shape
 * here, the business's prefix by the whole-file rules) and again by the workers before they send
 * anything.
 */
import { sha256 } from '@noble/hashes/sha2';
import { z } from 'zod';

/** Every environment variable a calendar's secret may be read from starts with this. */
export const CALENDAR_SECRET_ENV_PREFIX = 'USP_CALENDAR_SECRET_';

const SECRET_ENV_NAME = /^USP_CALENDAR_SECRET_[A-Za-z0-9_]+$/;

/** Whether `name` has the shape of a calendar secret's variable (`USP_CALENDAR_SECRET_…`), whichever business's. */
const isCalendarSecretShape = (name: string): boolean => SECRET_ENV_NAME.test(name);

/**
 * The prefix of business `businessId`'s calendar secrets: `USP_CALENDAR_SECRET_`, the id in capitals
 * with every other character an underscore (runs of them one, none at the ends), then `__`. Since a
 * normalised id never holds `__` nor ends with `_`, no variable carries the prefixes of two ids that
 * normalise apart (`ROSA__` is not a prefix of `ROSA_X__…`); ids that normalise alike (`rosa-x`,
 * `rosa.x`) share one, which a deployment hosting both must refuse.
 */
export function calendarSecretPrefix(businessId: string): string {
  const id = businessId
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `${CALENDAR_SECRET_ENV_PREFIX}${id || 'BUSINESS'}__`;
}

/** Whether `name` is a variable the operator set aside for business `businessId`'s calendar secrets. */
export function isCalendarSecretEnv(name: string, businessId: string): boolean {
  const prefix = calendarSecretPrefix(businessId);
  return isCalendarSecretShape(name) && name.startsWith(prefix) && name.length > prefix.length;
}

export const CALENDAR_SECRET_ENV_MESSAGE = `must name an environment variable starting with ${CALENDAR_SECRET_ENV_PREFIX} (only those hold calendar secrets)`;

/** The refusal of a variable that is not this business's calendar secret, naming the prefix it must have. */
export function calendarSecretEnvMessage(businessId: string): string {
  return `must name an environment variable starting with ${calendarSecretPrefix(businessId)} (only those hold this business's calendar secrets)`;
}

/**
 * Each CalDAV calendar of the raw file whose `password_env` has a calendar secret's shape but is not
 * this business's (an old `USP_CALENDAR_SECRET_AVA`, or another business's): the whole-file rule,
 * run where the business id is known. A name without the shape is the source schema's refusal.
 */
export function calendarSecretIssues(
  businessId: string,
  resources: ReadonlyArray<[number, Record<string, unknown>]>,
  add: (path: Array<string | number>, message: string) => void,
): void {
  for (const [i, r] of resources) {
    if (!Array.isArray(r.calendars)) continue;
    r.calendars.forEach((c: unknown, j: number) => {
      const name = (c as { password_env?: unknown } | null)?.password_env;
      if (typeof name !== 'string' || !isCalendarSecretShape(name) || isCalendarSecretEnv(name, businessId)) return;
      add(['resources', i, 'calendars', j, 'password_env'], calendarSecretEnvMessage(businessId));
    });
  }
}

const calendarUrl = () =>
  z
    .string()
    .trim()
    .max(2000, 'must be at most 2000 characters')
    .refine(
      (u) => URL.canParse(u) && ['https:', 'http:', 'webcal:'].includes(new URL(u).protocol),
      'must be an absolute https (or webcal) URL',
    )
    .refine(
      (u) => !URL.canParse(u) || (new URL(u).username === '' && new URL(u).password === ''),
      'must not carry credentials (use username and password_env)',
    );

export const CalendarSourceSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('ics'),
    url: calendarUrl().describe("The calendar's secret iCalendar address (webcal:// is read as https://)."),
  }),
  z.strictObject({
    type: z.literal('caldav'),
    url: calendarUrl().describe('The CalDAV calendar collection URL.'),
    username: z.string().min(1).max(320),
    password_env: z
      .string()
      .max(200)
      .refine(isCalendarSecretShape, CALENDAR_SECRET_ENV_MESSAGE)
      .describe(
        `Name of the environment variable holding the password or app token; it starts with ${CALENDAR_SECRET_ENV_PREFIX}, the business id in capitals (other characters as _), then __ (USP_CALENDAR_SECRET_MAPLE_PINE__AVA for business maple-pine).`,
      ),
    write: z
      .boolean()
      .optional()
      .describe("Also put this resource's bookings in the calendar as events (default false)."),
  }),
]);

export type CalendarSource = z.output<typeof CalendarSourceSchema>;

/**
 * What the business's subscribed feeds and the events pushed to its CalDAV calendars say of the
 * buyer: `none` (the service only), `name` (the default: first and last name) or `name_and_contact`
 * (also their email and phone, in the event's description).
 */
export const CalendarBuyerDataSchema = z
  .enum(['none', 'name', 'name_and_contact'])
  .default('name')
  .describe(
    'What the subscribed calendar feeds and the events pushed to CalDAV calendars carry of the buyer: none (the service only), name (default), or name_and_contact (also email and phone).',
  );

export type CalendarBuyerData = z.output<typeof CalendarBuyerDataSchema>;

/** A booking's event text in a feed or a pushed event, carrying no more of the buyer than the business chose. */
export function bookingEventText(
  serviceName: string,
  buyer: { first_name: string; last_name: string; email?: string; phone_number?: string },
  choice: CalendarBuyerData,
): { summary: string; description?: string } {
  if (choice === 'none') return { summary: serviceName };
  const summary = `${serviceName}: ${buyer.first_name} ${buyer.last_name}`.trim();
  if (choice === 'name') return { summary };
  // A walk-in's placeholder address (`.invalid`, RFC 2606) is no way to reach them.
  const email = buyer.email && !/\.invalid$/i.test(buyer.email) ? buyer.email : '';
  const contact = [
    email ? `Email: ${buyer.email}` : '',
    buyer.phone_number ? `Phone: ${buyer.phone_number}` : '',
  ].filter(Boolean);
  return contact.length > 0 ? { summary, description: contact.join('\n') } : { summary };
}

/** The fetchable URL of a calendar address: webcal:// is iCalendar over https. */
export function fetchableUrl(url: string): string {
  return url.replace(/^webcals?:\/\//i, 'https://');
}

/**
 * A calendar's key: the same while its resource, type and (fetchable) URL are, so a restart keeps
 * its busy times and validators, and a calendar taken out of the file can be forgotten.
 */
export function calendarKey(resourceId: string, c: CalendarSource): string {
  const bytes = sha256(new TextEncoder().encode(`${resourceId}\u0000${c.type}\u0000${fetchableUrl(c.url)}`));
  return Array.from(bytes.slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}
