/** A resource's `calendars` in the business file: secrets by environment variable name only, URLs without credentials. */
import { describe, expect, it } from 'vitest';
import { CalendarSourceSchema, calendarSecretPrefix, isCalendarSecretEnv } from '../../src/domain/index.js';

const issues = (v: unknown) => {
  const r = CalendarSourceSchema.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('calendars in the business file', () => {
  it('an iCalendar address, a webcal address and a CalDAV calendar with its password named by a variable are accepted', () => {
    expect(issues({ type: 'ics', url: 'https://calendar.google.com/calendar/ical/x/private-y/basic.ics' })).toEqual([]);
    expect(issues({ type: 'ics', url: 'webcal://p01-caldav.icloud.com/published/2/abc' })).toEqual([]);
    expect(
      issues({
        type: 'caldav',
        url: 'https://dav.example.com/cal/ava/',
        username: 'ava',
        password_env: 'USP_CALENDAR_SECRET_AVA',
        write: true,
      }),
    ).toEqual([]);
  });

  it('a password in the file, in the URL or as a variable that is not a name, is refused', () => {
    expect(
      issues({ type: 'caldav', url: 'https://dav.example.com/cal/', username: 'ava', password: 'secret' }).join(),
    ).toMatch(/password/);
    expect(issues({ type: 'ics', url: 'https://ava:secret@dav.example.com/cal.ics' }).join()).toMatch(
      /must not carry credentials/,
    );
    expect(
      issues({
        type: 'caldav',
        url: 'https://dav.example.com/cal/',
        username: 'ava',
        password_env: 'not a name',
      }).join(),
    ).toMatch(/environment variable starting with USP_CALENDAR_SECRET_/);
  });

  it('an address that is not a URL, or of another scheme, is refused', () => {
    expect(issues({ type: 'ics', url: 'calendar.ics' }).join()).toMatch(/absolute https/);
    expect(issues({ type: 'ics', url: 'file:///etc/passwd' }).join()).toMatch(/absolute https/);
    expect(issues({ type: 'exchange', url: 'https://x.example/' }).length).toBeGreaterThan(0);
  });

  it("a business's calendar secrets are named after it, and no name is two businesses' (rosa's prefix is not a prefix of rosa_x's)", () => {
    expect(calendarSecretPrefix('biz_maple-pine')).toBe('USP_CALENDAR_SECRET_BIZ_MAPLE_PINE__');
    expect(calendarSecretPrefix('__odd..id__')).toBe('USP_CALENDAR_SECRET_ODD_ID__');
    expect(isCalendarSecretEnv('USP_CALENDAR_SECRET_ROSA__AVA', 'rosa')).toBe(true);
    expect(isCalendarSecretEnv('USP_CALENDAR_SECRET_ROSA_X__AVA', 'rosa')).toBe(false);
    expect(isCalendarSecretEnv('USP_CALENDAR_SECRET_ROSA__AVA', 'rosa_x')).toBe(false);
    expect(isCalendarSecretEnv('USP_CALENDAR_SECRET_ROSA__', 'rosa')).toBe(false);
    expect(isCalendarSecretEnv('USP_CALENDAR_SECRET_AVA', 'rosa')).toBe(false);
    expect(isCalendarSecretEnv('STRIPE_SECRET_KEY', 'rosa')).toBe(false);
  });
});
