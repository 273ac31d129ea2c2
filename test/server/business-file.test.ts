import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, WEEKDAYS } from '../../src/domain/business.js';
import { BusinessFileError, loadBusinessFile, parseBusinessFile } from '../../src/server/business-file.js';

const demoPath = fileURLToPath(new URL('../../src/server/demo-business.json', import.meta.url));
const demoText = readFileSync(demoPath, 'utf8');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const demo = (): Json => JSON.parse(demoText);
const serviceIndex = (file: Json, id: string): number => file.services.findIndex((s: Json) => s.id === id);

const tmp = mkdtempSync(join(tmpdir(), 'usp-business-file-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `fn`, expects a BusinessFileError, checks the message is a plain listing and returns it. */
function failure(fn: () => unknown): BusinessFileError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BusinessFileError);
    const e = err as BusinessFileError;
    expect(e.issues.length).toBeGreaterThan(0);
    expect(e.message).not.toMatch(/^\s+at /m);
    for (const issue of e.issues) expect(e.message).toContain(`${issue.path}: ${issue.message}`);
    return e;
  }
  throw new Error('expected a BusinessFileError');
}

async function asyncFailure(promise: Promise<unknown>): Promise<BusinessFileError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BusinessFileError);
  const e = err as BusinessFileError;
  expect(e.message).not.toMatch(/^\s+at /m);
  return e;
}

const paths = (e: BusinessFileError) => e.issues.map((i) => i.path);

/** Mutates a copy of the demo and expects `path` among the reported issue paths. */
function rejects(
  mutate: (file: Json) => void,
  path: string | ((file: Json) => string),
  message?: RegExp,
): BusinessFileError {
  const file = demo();
  const expected = typeof path === 'function' ? path(file) : path;
  mutate(file);
  const e = failure(() => parseBusinessFile(file, 'broken.json'));
  expect(paths(e)).toContain(expected);
  if (message) expect(e.issues.find((i) => i.path === expected)?.message).toMatch(message);
  return e;
}

describe('the demo business file', () => {
  it('validates, fills default settings and drops $schema', async () => {
    const def = await loadBusinessFile(demoPath);
    expect(def.business.id).toBe('biz_maple_pine');
    expect(def.business.timezone).toBe('America/New_York');
    expect(def.settings).toEqual(DEFAULT_SETTINGS);
    expect(
      '$schema' in
        parseBusinessFile({ ...demo(), $schema: 'file:///opt/usp-server/schemas/business-file.schema.json' }),
    ).toBe(false);
    // No $schema in the demo: a relative path breaks as soon as the file is copied elsewhere.
    expect('$schema' in demo()).toBe(false);
  });

  it('offers the six required services with the required policies', () => {
    const def = parseBusinessFile(demo());
    const byId = new Map(def.services.map((s) => [s.id, s]));
    expect([...byId.keys()]).toEqual(
      expect.arrayContaining([
        'svc_haircut',
        'svc_yoga_class',
        'svc_color_consult',
        'svc_massage_60',
        'svc_bridal_trial',
        'svc_home_blowout',
      ]),
    );
    expect(byId.get('svc_haircut')?.policies).toMatchObject({
      requires_payment: true,
      payment_timing: 'at_service',
      rescheduling: { max_reschedules: 2 },
    });
    expect(byId.get('svc_haircut')?.requirements[0]).toMatchObject({ selectable: true });
    expect(byId.get('svc_yoga_class')).toMatchObject({ type: 'group', capacity: { max: 12, waitlist: true } });
    expect(byId.get('svc_color_consult')?.policies).toMatchObject({
      confirmation_mode: 'manual',
      requires_payment: false,
    });
    expect(byId.get('svc_massage_60')?.policies.payment_timing).toBe('at_booking');
    expect(byId.get('svc_bridal_trial')?.pricing.deposit).toMatchObject({ refundable: true });
    expect(byId.get('svc_home_blowout')?.channel).toMatchObject({
      type: 'at_buyer_location',
      service_area: expect.any(String),
    });
    for (const s of def.services) {
      expect(['PT15M', 'PT30M']).toContain(s.policies.booking_window?.slot_interval);
      expect(s.categories?.some((c) => c.taxonomy === 'merchant' && c.id && c.name)).toBe(true);
      expect(s.categories?.some((c) => c.taxonomy !== 'merchant' && c.value)).toBe(true);
    }
  });

  it('keeps every resource open every day of the next 30 days', () => {
    const def = parseBusinessFile(demo());
    const today = DateTime.now().setZone(def.business.timezone).startOf('day');
    const horizon = today.plus({ days: 31 });
    for (const r of def.resources) {
      for (const day of WEEKDAYS) expect(r.schedule[day]?.length, `${r.id} on ${day}`).toBeGreaterThan(0);
      for (const ex of r.exceptions ?? []) {
        const date = DateTime.fromISO(ex.date, { zone: def.business.timezone });
        const inWindow = date >= today && date < horizon;
        expect(inWindow && ex.hours.length === 0, `${r.id} closed on ${ex.date}`).toBe(false);
      }
      for (const off of r.time_off ?? []) expect(DateTime.fromISO(off.end) < today, `${r.id} time off`).toBe(true);
    }
  });
});

describe('broken business files', () => {
  it('reports a wrong type at its path', () => {
    rejects((f) => (f.resources[0].name = 42), 'resources[0].name', /expected string/);
  });

  it('reports a missing member as required', () => {
    rejects((f) => delete f.business.name, 'business.name', /required/);
  });

  it('rejects an unknown time zone', () => {
    rejects((f) => (f.business.timezone = 'America/New_Yrok'), 'business.timezone', /IANA/);
  });

  it('rejects a malformed duration', () => {
    rejects((f) => (f.services[0].duration.fixed = '45 minutes'), 'services[0].duration.fixed', /ISO 8601/);
  });

  it('rejects malformed times, dates, instants and currency codes', () => {
    const e = rejects((f) => {
      f.resources[0].schedule.monday[0].opens = '9:00';
      f.resources[2].exceptions[0].date = '2026-02-30';
      f.resources[2].time_off[0].start = '2026-08-10 00:00';
      f.business.currency = 'usd';
    }, 'resources[0].schedule.monday[0].opens');
    expect(paths(e)).toEqual(
      expect.arrayContaining([
        'resources[2].exceptions[0].date',
        'resources[2].time_off[0].start',
        'business.currency',
      ]),
    );
  });

  it('rejects an opening interval whose close is not after its open', () => {
    rejects(
      (f) => (f.resources[1].schedule.friday = [{ opens: '18:00', closes: '11:00' }]),
      'resources[1].schedule.friday[0].closes',
      /later than opens/,
    );
  });

  it('rejects a requirement naming an unknown resource or one of the wrong type', () => {
    const e = rejects(
      (f) => {
        f.services[0].requirements[0].resource_ids.push('res_nobody');
        f.services[0].requirements[0].resource_ids.push('res_room_studio');
      },
      'services[0].requirements[0].resource_ids[3]',
      /no resource/,
    );
    expect(e.issues.find((i) => i.path === 'services[0].requirements[0].resource_ids[4]')?.message).toMatch(
      /type "room"/,
    );
  });

  it('rejects unknown location references', () => {
    const e = rejects((f) => (f.resources[0].location_id = 'loc_midtown'), 'resources[0].location_id', /no location/);
    expect(e.message.split('\n')[0]).toMatch(/^broken\.json: /);
    rejects((f) => f.services[0].location_ids.push('loc_midtown'), 'services[0].location_ids[1]');
  });

  it('enforces the USP §3.11 payment/pricing matrix', () => {
    const consult = (f: Json) => serviceIndex(f, 'svc_color_consult');
    const bridal = (f: Json) => serviceIndex(f, 'svc_bridal_trial');
    // requires_payment false with a priced model
    rejects(
      (f) => Object.assign(f.services[consult(f)].pricing, { model: 'fixed', amount: 1000 }),
      (f) => `services[${consult(f)}].pricing.model`,
    );
    // requires_payment false with a payment timing
    rejects(
      (f) => (f.services[consult(f)].policies.payment_timing = 'at_service'),
      (f) => `services[${consult(f)}].policies.payment_timing`,
    );
    // requires_payment true without payment_timing
    rejects((f) => delete f.services[0].policies.payment_timing, 'services[0].policies.payment_timing', /required/);
    // requires_payment true with the free model
    rejects(
      (f) =>
        (f.services[consult(f)].policies = {
          ...f.services[consult(f)].policies,
          requires_payment: true,
          payment_timing: 'at_booking',
        }),
      (f) => `services[${consult(f)}].pricing.model`,
    );
    // deposit_required without pricing.deposit
    rejects(
      (f) => delete f.services[bridal(f)].pricing.deposit,
      (f) => `services[${bridal(f)}].pricing.deposit`,
    );
    // free with an amount or a price range
    rejects(
      (f) => (f.services[consult(f)].pricing.amount = 500),
      (f) => `services[${consult(f)}].pricing.amount`,
    );
    rejects(
      (f) => (f.services[consult(f)].pricing.price_range = { min: 0, max: 100 }),
      (f) => `services[${consult(f)}].pricing.price_range`,
    );
    // fixed price of zero
    rejects((f) => (f.services[0].pricing.amount = 0), 'services[0].pricing.amount', /greater than zero/);
    // two durations, or none
    rejects(
      (f) => (f.services[0].duration.range = { min: 'PT30M', max: 'PT60M' }),
      'services[0].duration.range',
      /exactly one/,
    );
    rejects((f) => delete f.services[0].duration.fixed, 'services[0].duration', /exactly one/);
    // undetermined duration with hourly pricing
    rejects(
      (f) => {
        f.services[0].duration = { undetermined: true };
        f.services[0].pricing.model = 'hourly';
      },
      'services[0].pricing.model',
      /hourly/,
    );
  });

  it('requires capacity for group services', () => {
    rejects(
      (f) => delete f.services[serviceIndex(f, 'svc_yoga_class')].capacity,
      (f) => `services[${serviceIndex(f, 'svc_yoga_class')}].capacity`,
      /group/,
    );
    rejects(
      (f) => (f.services[serviceIndex(f, 'svc_yoga_class')].capacity.max = 0),
      (f) => `services[${serviceIndex(f, 'svc_yoga_class')}].capacity.max`,
    );
  });

  it('requires hours for a service without requirements', () => {
    rejects((f) => (f.services[0].requirements = []), 'services[0].hours');
  });

  it('rejects duplicate ids', () => {
    const e = rejects((f) => (f.services[3].id = f.services[0].id), 'services[3].id', /duplicate/);
    expect(e.issues.find((i) => i.path === 'services[3].id')?.message).toContain('services[0]');
    rejects((f) => (f.resources[1].id = f.resources[0].id), 'resources[1].id', /duplicate/);
    rejects((f) => (f.business.locations[1].id = f.business.locations[0].id), 'business.locations[1].id', /duplicate/);
  });

  it('rejects a service priced in another currency', () => {
    rejects((f) => (f.services[2].pricing.currency = 'EUR'), 'services[2].pricing.currency', /USD/);
  });

  it('rejects a public_url that is not an absolute http(s) URL', () => {
    rejects((f) => (f.settings = { public_url: 'localhost:8787' }), 'settings.public_url', /http/);
    rejects((f) => (f.settings = { public_url: 'ftp://example.com' }), 'settings.public_url');
  });

  it('rejects unknown top-level members and unknown service members', () => {
    rejects((f) => (f.servics = f.services), 'servics', /unknown member/);
    rejects((f) => (f.services[0].resources = []), 'services[0].resources', /requirements/);
  });

  it('reports every issue at once, file name first', () => {
    const file = demo();
    file.business.timezone = 'Mars/Olympus';
    file.services[1].duration.fixed = 'one hour';
    delete file.services[0].policies.payment_timing;
    file.services[0].pricing.currency = 'CAD';
    const e = failure(() => parseBusinessFile(file, 'maple.json'));
    expect(paths(e)).toEqual(
      expect.arrayContaining([
        'business.timezone',
        'services[1].duration.fixed',
        'services[0].policies.payment_timing',
        'services[0].pricing.currency',
      ]),
    );
    expect(e.message.startsWith('maple.json: invalid business file (4 issues)\n')).toBe(true);
    expect(e.message).toContain('\n  services[0].policies.payment_timing: ');
  });

  it('rejects a document that is not an object', () => {
    const e = failure(() => parseBusinessFile([]));
    expect(paths(e)).toEqual(['(root)']);
  });

  it('turns invalid JSON into a one-line error naming the file', async () => {
    const path = join(tmp, 'broken.json');
    writeFileSync(path, '{\n  "business": {\n    "id": "biz_x",\n  }\n}\n');
    const e = await asyncFailure(loadBusinessFile(path));
    expect(e.message).not.toContain('\n');
    expect(e.message.startsWith(`${path}: not valid JSON`)).toBe(true);
    expect(e.issues).toEqual([{ path: '(file)', message: expect.stringMatching(/^not valid JSON/) }]);
  });

  it('turns a missing file into a one-line error naming the file', async () => {
    const path = join(tmp, 'missing.json');
    const e = await asyncFailure(loadBusinessFile(path));
    expect(e.message).toBe(`${path}: cannot read the business file: no such file`);
    expect(e.issues[0].path).toBe('(file)');
  });

  it('names the file when a file on disk is invalid', async () => {
    const file = demo();
    file.services[0].type = 'Haircut Vertical';
    const path = join(tmp, 'invalid.json');
    writeFileSync(path, JSON.stringify(file));
    const e = await asyncFailure(loadBusinessFile(path));
    expect(e.message.startsWith(`${path}: invalid business file (1 issue)`)).toBe(true);
    expect(paths(e)).toEqual(['services[0].type']);
  });

  it('accepts a file without settings, taking every default', () => {
    const file = demo();
    delete file.settings;
    delete file.$schema;
    expect(parseBusinessFile(file).settings).toEqual(DEFAULT_SETTINGS);
  });
});
