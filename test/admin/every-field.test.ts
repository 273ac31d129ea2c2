/**
 * Every member of the business file can be changed through the admin API: the test walks the file's
 * schema (the business, its locations, the settings, a resource, a service, the top level) and holds
 * each member to a change made through an admin operation and read back from the stored definition,
 * or to a stated reason it is not the admin API's. A member added to the schema fails here until it
 * is reachable or given its reason; the settings are sampled from their schema, so a new setting is
 * covered without an edit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BusinessFileSchema } from '../../src/domain/business.js';
import { storedDefinition } from '../../src/operations/index.js';
import { ADMIN_KEY, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

type Json = Record<string, any>;

/** The object schema under wrappers (optional, default, prefault, pipes) and, for a list, its item. */
function objectOf(schema: z.ZodType): z.ZodObject | undefined {
  let s: any = schema;
  for (let i = 0; i < 10 && s; i++) {
    const def = s._zod.def;
    if (def.type === 'object') return s;
    s = def.innerType ?? def.element ?? def.in ?? undefined;
  }
  return undefined;
}
const membersOf = (schema: z.ZodType, prefix: string) =>
  Object.keys(objectOf(schema)!.shape).map((k) => `${prefix}${k}`);
const FILE = objectOf(BusinessFileSchema)!.shape as Record<string, z.ZodType>;
const BUSINESS = objectOf(FILE.business)!.shape as Record<string, z.ZodType>;
const MEMBERS = [
  ...Object.keys(FILE),
  ...membersOf(FILE.business, 'business.'),
  ...membersOf(BUSINESS.locations, 'business.locations[].'),
  ...membersOf(FILE.settings, 'settings.'),
  ...membersOf(FILE.resources, 'resources[].'),
  ...membersOf(FILE.services, 'services[].'),
];

/** Members that are not the admin API's to change, and why. */
const NOT_EDITED: Record<string, string> = {
  $schema: 'an editor hint the server ignores',
  admin_api_key_hashes: 'credentials read at start (the file or --admin-key); the admin API cannot mint its own admin',
  platform_api_keys:
    'pre-established credentials read at start; /admin/api-keys issues and revokes platform keys at run time',
  'business.id': 'names the database and every published service; set by the file',
  'business.locations[].id': 'chosen when the location is created (POST /admin/locations)',
  'resources[].id': 'chosen when the resource is created (POST /admin/resources)',
  'services[].id': 'chosen when the service is created (POST /admin/services)',
};

const WEEK = { monday: [{ opens: '09:00', closes: '17:00' }], tuesday: [{ opens: '10:00', closes: '18:00' }] };
const demo = demoBusiness();
const haircut = demo.services.find((s) => s.id === 'svc_haircut')!;

/** One change per member: the operation, its body, and the member's stored value after it. */
type Reach = { method: string; path: string; body: Json; value: unknown };
const svc = (member: string, value: unknown, body: Json = { [member]: value }): Reach => ({
  method: 'PATCH',
  path: '/admin/services/svc_haircut',
  body,
  value,
});
const res = (member: string, value: unknown): Reach => ({
  method: 'PATCH',
  path: '/admin/resources/res_probe',
  body: { [member]: value },
  value,
});
const loc = (member: string, value: unknown): Reach => ({
  method: 'PATCH',
  path: '/admin/locations/loc_uptown',
  body: { [member]: value },
  value,
});
const biz = (member: string, value: unknown): Reach => ({
  method: 'PATCH',
  path: '/admin/business',
  body: { [member]: value },
  value,
});

const REACH: Record<string, Reach> = {
  business: { ...biz('name', 'Maple & Pine Two'), value: undefined },
  settings: { method: 'PATCH', path: '/admin/settings', body: { max_waitlist_entries: 42 }, value: undefined },
  resources: {
    method: 'POST',
    path: '/admin/resources',
    body: { id: 'res_probe_two', type: 'equipment', name: 'Dryer', schedule: WEEK },
    value: undefined,
  },
  services: {
    method: 'POST',
    path: '/admin/services',
    body: { ...structuredClone(haircut), id: 'svc_probe_two', handle: 'probe-two' },
    value: undefined,
  },
  'business.name': biz('name', 'Maple & Pine Again'),
  'business.timezone': biz('timezone', 'America/Chicago'),
  'business.currency': biz('currency', 'CAD'),
  'business.locale': biz('locale', 'fr-CA'),
  'business.contact': biz('contact', { phone: '+1 212 555 0199', email: 'desk@maple-pine.example' }),
  'business.locations': {
    method: 'POST',
    path: '/admin/locations',
    body: { id: 'loc_probe', name: 'Harbor' },
    value: undefined,
  },
  'business.locations[].name': loc('name', 'Uptown Loft'),
  'business.locations[].address': loc('address', '9 Hill Rd'),
  'business.locations[].coordinates': loc('coordinates', { lat: 40.8, lng: -73.95 }),
  'resources[].type': res('type', 'room'),
  'resources[].name': res('name', 'Steamer'),
  'resources[].location_id': res('location_id', 'loc_downtown'),
  'resources[].schedule': res('schedule', { wednesday: [{ opens: '08:00', closes: '12:00' }] }),
  'resources[].exceptions': res('exceptions', [{ date: '2031-01-05', hours: [] }]),
  'resources[].time_off': res('time_off', [{ start: '2031-02-01T00:00:00Z', end: '2031-02-02T00:00:00Z' }]),
  'resources[].calendars': res('calendars', [{ type: 'ics', url: 'https://calendar.example.com/probe.ics' }]),
  'services[].name': svc('name', 'Cut & finish'),
  'services[].type': svc('type', 'com.example.hair'),
  'services[].status': svc('status', 'suspended'),
  'services[].description': svc('description', 'A new description'),
  'services[].categories': {
    method: 'POST',
    path: '/admin/categories',
    body: { id: 'cat_probe', name: 'Probe', service_ids: ['svc_haircut'] },
    value: [...(haircut.categories ?? []), { taxonomy: 'merchant', id: 'cat_probe', name: 'Probe' }],
  },
  'services[].duration': svc('duration', { ...haircut.duration, fixed: 'PT50M' }),
  'services[].pricing': svc('pricing', { amount: 4321 }),
  'services[].channel': svc('channel', { ...haircut.channel, instructions: 'Ring twice' }),
  'services[].policies': svc('policies', {
    ...haircut.policies,
    confirmation_mode: haircut.policies.confirmation_mode === 'auto' ? 'manual' : 'auto',
  }),
  'services[].capacity': svc('capacity', { max: 1 }),
  'services[].provider': svc('provider', { name: 'Maple & Pine' }),
  'services[].media': svc('media', [{ type: 'image', url: 'https://img.example.com/cut.jpg' }]),
  'services[].rating': svc('rating', { value: 4.5, scale_max: 5 }),
  'services[].handle': svc('handle', 'cut-and-finish'),
  'services[].url': svc('url', 'https://salon.example.com/cut'),
  'services[].tags': svc('tags', ['quick']),
  'services[].metadata': svc('metadata', { shelf: 'a' }),
  'services[].links': svc('links', [{ type: 'terms', url: 'https://salon.example.com/terms' }]),
  'services[].localized': svc('localized', { name: { es: 'Corte' } }),
  'services[].requirements': svc(
    'requirements',
    haircut.requirements.map((r) => ({ ...r, resource_ids: r.resource_ids.slice(0, 1) })),
  ),
  'services[].location_ids': svc('location_ids', ['loc_downtown']),
  'services[].hours': svc('hours', WEEK),
};

/** A value for a setting, from its JSON Schema: what the server would accept and differs from the default. */
function sampleSetting(name: string, p: Json): unknown {
  if (p.type === 'integer' || p.type === 'number') return Math.max(p.minimum ?? 0, (p.default ?? 1) + 7);
  if (p.type === 'boolean') return !(p.default ?? false);
  if (p.enum) return p.enum.find((v: unknown) => v !== p.default);
  if (p.type === 'object') return { reminder: 'templates/reminder.txt' };
  if (p.type === 'string')
    return name.includes('template') ? 'https://pay.example.com/{booking_id}/{action_id}' : 'https://book.example.com';
  throw new Error(`settings.${name}: no sample for ${JSON.stringify(p)}; teach sampleSetting this kind`);
}
const SETTINGS = (z.toJSONSchema(FILE.settings, { io: 'input' }) as Json).properties as Record<string, Json>;
for (const [name, p] of Object.entries(SETTINGS)) {
  const value = sampleSetting(name, p);
  REACH[`settings.${name}`] = { method: 'PATCH', path: '/admin/settings', body: { [name]: value }, value };
}

/** The member's stored value (for a listed object, on the object the change addressed). */
function storedAt(def: Json, member: string): unknown {
  const [head, rest] = member.split('[].');
  const key = rest ?? head.split('.').pop()!;
  if (member.startsWith('business.locations[].'))
    return def.business.locations.find((l: Json) => l.id === 'loc_uptown')[key];
  if (member.startsWith('resources[].')) return def.resources.find((r: Json) => r.id === 'res_probe')[key];
  if (member.startsWith('services[].')) return def.services.find((s: Json) => s.id === 'svc_haircut')[key];
  if (member.startsWith('business.')) return def.business[key];
  if (member.startsWith('settings.')) return def.settings[key];
  return undefined;
}

describe('every member of the business file is reachable through the admin API', () => {
  it('the schema walk finds the members (guards the walk) and each is reached or has its reason, and nothing else is listed', () => {
    expect(MEMBERS).toEqual(
      expect.arrayContaining([
        'business.timezone',
        'settings.hold_ttl_seconds',
        'services[].pricing',
        'resources[].schedule',
        'business.locations[].address',
      ]),
    );
    const missing = MEMBERS.filter((m) => !(m in REACH) && !(m in NOT_EDITED));
    expect(missing, 'members no admin operation reaches').toEqual([]);
    const stray = [...Object.keys(REACH), ...Object.keys(NOT_EDITED)].filter((m) => !MEMBERS.includes(m));
    expect(stray, 'entries for members the schema does not have').toEqual([]);
  });

  describe('each change, made through its operation, is what the stored definition holds', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer();
      const probe = await t.call(
        'POST',
        '/admin/resources',
        { id: 'res_probe', type: 'equipment', name: 'Steamer', schedule: WEEK },
        { apiKey: ADMIN_KEY, profile: null },
      );
      expect(probe.status, JSON.stringify(probe.body)).toBe(201);
    });
    afterAll(async () => {
      await t?.close();
    });

    it.each(Object.entries(REACH))('%s', async (member, reach) => {
      const answer = await t.call(reach.method, reach.path, reach.body, { apiKey: ADMIN_KEY, profile: null });
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      const stored = (await t.server.store.read((tx) => storedDefinition(tx)))!.def as Json;
      // A change is a merge patch: an object sent is merged into the stored one.
      const plain = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
      if (plain(reach.value)) expect(storedAt(stored, member)).toMatchObject(reach.value as Json);
      else if (reach.value !== undefined) expect(storedAt(stored, member)).toEqual(reach.value);
      else expect(JSON.stringify(stored)).toContain(JSON.stringify(Object.values(reach.body)[0]));
    });
  });
});
