/**
 * The calendars of a business's resources as the background workers see them: one feed per listed
 * calendar, named by a key that stays the same while its resource, type and URL do (so a restart
 * keeps its busy times and validators), and the writable CalDAV calendars bookings are pushed to.
 */
import {
  calendarKey,
  calendarSecretPrefix,
  fetchableUrl,
  isCalendarSecretEnv,
  type CalendarSource,
} from '../domain/index.js';

export { fetchableUrl };

export interface CalendarFeed {
  key: string;
  resourceId: string;
  type: 'ics' | 'caldav';
  /** https:// (a webcal:// address is read as https://). */
  url: string;
  username?: string;
  /** The environment variable holding the password or token. */
  passwordEnv?: string;
  write: boolean;
}

/** Every calendar of every resource, in the business file's order. */
export function calendarFeeds(
  resources: ReadonlyArray<{ id: string; calendars?: readonly CalendarSource[] }>,
): CalendarFeed[] {
  return resources.flatMap((r) =>
    (r.calendars ?? []).map((c): CalendarFeed => {
      const url = fetchableUrl(c.url);
      const key = calendarKey(r.id, c);
      return c.type === 'ics'
        ? { key, resourceId: r.id, type: 'ics', url, write: false }
        : {
            key,
            resourceId: r.id,
            type: 'caldav',
            url: url.endsWith('/') ? url : `${url}/`,
            username: c.username,
            passwordEnv: c.password_env,
            write: c.write === true,
          };
    }),
  );
}

/** A calendar names a variable that is not a calendar secret: nothing is read from it, nothing sent. */
export class SecretEnvRefused extends Error {}

/**
 * The Authorization header of a CalDAV feed of business `businessId`, from its environment variable
 * (null when it is unset). Only that business's `USP_CALENDAR_SECRET_<BUSINESS>__…` variables are
 * ever read (the definition is checked at input too; this is the second line, should a definition
 * reach a worker another way).
 */
export function basicAuth(feed: CalendarFeed, env: NodeJS.ProcessEnv, businessId: string): string | null {
  if (feed.type !== 'caldav' || !feed.passwordEnv) return null;
  if (!isCalendarSecretEnv(feed.passwordEnv, businessId)) {
    throw new SecretEnvRefused(
      `password_env ${feed.passwordEnv} is not a calendar secret of this business (its name must start with ${calendarSecretPrefix(businessId)}): nothing sent`,
    );
  }
  const secret = env[feed.passwordEnv];
  if (secret === undefined || secret === '') return null;
  return `Basic ${Buffer.from(`${feed.username}:${secret}`).toString('base64')}`;
}
