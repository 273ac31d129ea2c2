/**
 * Short slot ids: "slot_" + start + an 8-character tag (the first 48 bits of SHA-256 over the
 * service and its resource combination). They stay opaque, stable and canonical; the tag names a
 * combination by its ids, never by a position in the business file; long ids issued before keep
 * working; a business whose combinations would share a tag is refused.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { BusinessDef, ResourceDef, ServiceDef } from '../../src/domain/business.js';
import { decodeSlotId, encodeSlotId, sameSlotId, slotIdEncoder, slotTag } from '../../src/domain/slot-id.js';
import {
  findSlotTagClash,
  resolveSlotId,
  serviceCombinations,
  SlotTagClash,
  slotTagIndex,
} from '../../src/domain/slot-tags.js';
import { generateSlots } from '../../src/domain/slots.js';
import { demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const START = Date.parse('2026-12-04T15:00:00Z');

/** The long form issued before short ids: base64url of the start as 6 bytes, then the JSON of service and resources. */
function longId(
  serviceId: string,
  startMs: number,
  resourceIds: string[],
  json = JSON.stringify([serviceId, resourceIds]),
): string {
  const head = Buffer.alloc(6);
  head.writeUIntBE(startMs, 0, 6);
  return 'slot_' + Buffer.concat([head, Buffer.from(json, 'utf8')]).toString('base64url');
}

const resourcesOf = (def: BusinessDef) => new Map(def.resources.map((r) => [r.id, r] as const));

/** Every slot of every service over three days, as id -> resource ids. */
function idsOf(def: BusinessDef): Map<string, readonly string[]> {
  const resources = resourcesOf(def);
  const out = new Map<string, readonly string[]>();
  for (const service of def.services) {
    const slots = generateSlots({
      service,
      resources,
      zone: def.business.timezone,
      fromMs: TEST_NOW,
      toMs: TEST_NOW + 3 * DAY,
      nowMs: TEST_NOW,
      claims: [],
      partySize: 1,
    });
    for (const s of slots) out.set(s.id, s.resourceIds);
  }
  return out;
}

/** The demo business with services, resources and every requirement's candidates in reverse order. */
function reversed(def: BusinessDef): BusinessDef {
  return {
    ...def,
    resources: [...def.resources].reverse(),
    services: [...def.services].reverse().map((s) => ({
      ...s,
      requirements: s.requirements.map((r) => ({ ...r, resource_ids: [...r.resource_ids].reverse() })),
    })),
  };
}

describe('a slot id is "slot_" + start + an 8-character tag: short, opaque and canonical', () => {
  test('a start on a whole minute gives a 19-character id, any other millisecond a 21-character one', () => {
    expect(encodeSlotId({ serviceId: 'svc_haircut', startMs: START, resourceIds: ['res_stylist_ava'] })).toMatch(
      /^slot_[\w-]{14}$/,
    );
    expect(encodeSlotId({ serviceId: 'svc_haircut', startMs: START + 1, resourceIds: ['res_stylist_ava'] })).toMatch(
      /^slot_[\w-]{16}$/,
    );
    expect(
      encodeSlotId({ serviceId: 'svc_haircut', startMs: START + 1000, resourceIds: ['res_stylist_ava'] }),
    ).toHaveLength(21);
  });

  test('the tag is the first 48 bits of SHA-256 over the JSON [serviceId, resourceIds], in base64url', () => {
    const expected = createHash('sha256')
      .update(JSON.stringify(['svc_massage_60', ['res_therapist_dana', 'res_room_treatment_1']]))
      .digest()
      .subarray(0, 6)
      .toString('base64url');
    expect(slotTag('svc_massage_60', ['res_therapist_dana', 'res_room_treatment_1'])).toBe(expected);
    const id = encodeSlotId({
      serviceId: 'svc_massage_60',
      startMs: START,
      resourceIds: ['res_therapist_dana', 'res_room_treatment_1'],
    });
    expect(id.endsWith(expected)).toBe(true);
  });

  test('the tag changes with the service, with any resource and with the requirement order of the resources', () => {
    const tags = [
      slotTag('s', ['a', 'b']),
      slotTag('s', ['b', 'a']),
      slotTag('t', ['a', 'b']),
      slotTag('s', ['a', 'c']),
      slotTag('s', ['a']),
      slotTag('s', ['ab']),
    ];
    expect(new Set(tags).size).toBe(tags.length);
  });

  test('every id decodes to its start and tag, and encoding the same parts twice gives the same id (property)', () => {
    const id = fc.string({ minLength: 1, maxLength: 20 });
    const start = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 48 - 1 }),
      fc.integer({ min: 0, max: Math.floor((2 ** 48 - 1) / MIN) }).map((m) => m * MIN),
    );
    fc.assert(
      fc.property(id, fc.array(id, { maxLength: 4 }), start, (serviceId, resourceIds, startMs) => {
        const encoded = encodeSlotId({ serviceId, startMs, resourceIds });
        expect(encoded).toBe(slotIdEncoder(serviceId, resourceIds)(startMs));
        expect(encoded.length).toBe(startMs % MIN === 0 ? 19 : 21);
        expect(decodeSlotId(encoded)).toEqual({ startMs, tag: slotTag(serviceId, resourceIds) });
      }),
      { numRuns: 500 },
    );
  });

  test('the first and last representable starts round-trip', () => {
    for (const startMs of [0, 1, MIN, 2 ** 48 - 1, Math.floor((2 ** 48 - 1) / MIN) * MIN]) {
      expect(decodeSlotId(encodeSlotId({ serviceId: 's', startMs, resourceIds: ['r'] }))?.startMs).toBe(startMs);
    }
  });

  test('parts that could never be a slot are refused when encoding', () => {
    expect(() => encodeSlotId({ serviceId: '', startMs: START, resourceIds: [] })).toThrow(/non-empty/);
    expect(() => encodeSlotId({ serviceId: 's', startMs: START, resourceIds: [''] })).toThrow(/non-empty/);
    expect(() => encodeSlotId({ serviceId: 's', startMs: -1, resourceIds: [] })).toThrow(/2\^48/);
    expect(() => encodeSlotId({ serviceId: 's', startMs: 2 ** 48, resourceIds: [] })).toThrow(/2\^48/);
    expect(() => encodeSlotId({ serviceId: 's', startMs: 1.5, resourceIds: [] })).toThrow(/2\^48/);
  });

  test('a whole minute written in milliseconds, a start past 2^48 ms, a bad character or a wrong length is no id', () => {
    const id = encodeSlotId({ serviceId: 's', startMs: START, resourceIds: ['r'] });
    const tag = id.slice(-8);
    const sixBytes = Buffer.alloc(6);
    sixBytes.writeUIntBE(START, 0, 6);
    const msForm = 'slot_' + sixBytes.toString('base64url') + tag;
    expect(msForm).toHaveLength(21);
    expect(decodeSlotId(msForm)).toBeNull();
    expect(decodeSlotId('slot______' + '_' + tag)).toBeNull(); // 2^36 - 1 minutes is past 2^48 ms
    for (const bad of [
      id.slice(0, -1) + '!',
      id.slice(0, 6) + '.' + id.slice(7),
      id.slice(0, -1),
      id + 'A',
      id + 'AA' + 'A',
      'slot_' + tag,
      'SLOT_' + id.slice(5),
      ' ' + id,
    ]) {
      expect(decodeSlotId(bad), bad).toBeNull();
    }
    expect(decodeSlotId(undefined)).toBeNull();
    expect(decodeSlotId({ id })).toBeNull();
  });
});

describe('long-form ids issued before short ones keep working', () => {
  const resources = ['res_therapist_dana', 'res_room_treatment_1'];

  test('a long-form id decodes to the same start and tag as the short id of its slot', () => {
    const short = encodeSlotId({ serviceId: 'svc_massage_60', startMs: START, resourceIds: resources });
    const long = longId('svc_massage_60', START, resources);
    expect(long.length).toBeGreaterThan(60);
    expect(decodeSlotId(long)).toEqual(decodeSlotId(short));
    expect(sameSlotId(long, short)).toBe(true);
    expect(sameSlotId(short, long)).toBe(true);
  });

  test('sameSlotId tells apart another start, another resource and another service', () => {
    const long = longId('svc_massage_60', START, resources);
    expect(
      sameSlotId(
        long,
        encodeSlotId({ serviceId: 'svc_massage_60', startMs: START + 15 * MIN, resourceIds: resources }),
      ),
    ).toBe(false);
    expect(
      sameSlotId(
        long,
        encodeSlotId({
          serviceId: 'svc_massage_60',
          startMs: START,
          resourceIds: ['res_therapist_eli', 'res_room_treatment_1'],
        }),
      ),
    ).toBe(false);
    expect(sameSlotId(long, encodeSlotId({ serviceId: 'svc_other', startMs: START, resourceIds: resources }))).toBe(
      false,
    );
    expect(sameSlotId(long, 'slot_x')).toBe(false);
  });

  test('a long-form id in another spelling (JSON spaces, trailing bits) or with parts of the wrong kind is no id', () => {
    expect(decodeSlotId(longId('s', START, ['r'], '["s", ["r"]]'))).toBeNull();
    expect(decodeSlotId(longId('s', START, ['r'], '["s",["r"],1]'))).toBeNull();
    expect(decodeSlotId(longId('s', START, ['r'], '["",["r"]]'))).toBeNull();
    expect(decodeSlotId(longId('s', START, ['r'], '["s",[1]]'))).toBeNull();
    expect(decodeSlotId(longId('s', START, ['r']) + 'A')).toBeNull();
  });
});

describe('a tag resolves to one resource combination of its service, whatever the order of the business file', () => {
  const def = demoBusiness();
  const resources = resourcesOf(def);
  const service = (id: string) => def.services.find((s) => s.id === id)!;

  test('every slot the generator offers resolves to its own service and resources', () => {
    let n = 0;
    for (const s of def.services) {
      const slots = generateSlots({
        service: s,
        resources,
        zone: def.business.timezone,
        fromMs: TEST_NOW,
        toMs: TEST_NOW + 3 * DAY,
        nowMs: TEST_NOW,
        claims: [],
        partySize: 1,
      });
      for (const slot of slots) {
        expect(resolveSlotId(slot.id, s, resources)).toEqual({
          serviceId: s.id,
          startMs: slot.startMs,
          resourceIds: slot.resourceIds,
        });
        n++;
      }
    }
    expect(n).toBeGreaterThan(500);
  });

  test("reversing services, resources and every requirement's candidates changes no id and no id's resources", () => {
    const before = idsOf(def);
    const after = idsOf(reversed(def));
    expect(after.size).toBe(before.size);
    for (const [id, resourceIds] of before) expect(after.get(id), id).toEqual(resourceIds);
  });

  test('a long-form id resolves like the short id of its slot', () => {
    const haircut = service('svc_haircut');
    expect(resolveSlotId(longId('svc_haircut', START, ['res_stylist_ben']), haircut, resources)).toEqual({
      serviceId: 'svc_haircut',
      startMs: START,
      resourceIds: ['res_stylist_ben'],
    });
  });

  test('an id whose resource has left the service, or of another service, resolves to nothing', () => {
    const haircut = service('svc_haircut');
    const id = encodeSlotId({ serviceId: 'svc_haircut', startMs: START, resourceIds: ['res_stylist_ben'] });
    const withoutBen: ServiceDef = {
      ...haircut,
      requirements: [{ ...haircut.requirements[0], resource_ids: ['res_stylist_ava', 'res_stylist_carla'] }],
    };
    expect(resolveSlotId(id, withoutBen, resources)).toBeNull();
    expect(resolveSlotId(id, service('svc_color_consult'), resources)).toBeNull();
    const noBen = new Map([...resources].filter(([k]) => k !== 'res_stylist_ben')) as Map<string, ResourceDef>;
    expect(resolveSlotId(id, haircut, noBen)).toBeNull();
    expect(resolveSlotId('slot_x', haircut, resources)).toBeNull();
  });

  test('the index of a service holds each of its combinations, built once per service and resource map', () => {
    const massage = service('svc_massage_60');
    const index = slotTagIndex(massage, resources);
    expect([...index.values()]).toEqual(serviceCombinations(massage, resources));
    expect(index.size).toBe(4);
    expect(slotTagIndex(massage, resources)).toBe(index);
    expect(slotTagIndex(massage, new Map(resources))).not.toBe(index);
  });

  test('a service without requirements has one combination, its own self resource', () => {
    const self: ServiceDef = { ...service('svc_haircut'), id: 'svc_walk_in', requirements: [] };
    expect(serviceCombinations(self, resources)).toEqual([['service:svc_walk_in']]);
  });
});

describe('two resource combinations sharing a tag are found when a business is loaded', () => {
  const def = demoBusiness();
  const resources = resourcesOf(def);

  test('the demo business has no clash', () => {
    expect(findSlotTagClash(def.services, resources)).toBeNull();
  });

  test('with a 6-bit tag a service of more than 64 combinations has a clash (pigeonhole), naming both combinations', () => {
    const many: ResourceDef[] = Array.from({ length: 65 }, (_, i) => ({ ...def.resources[0], id: `res_chair_${i}` }));
    const big: ServiceDef = {
      ...def.services[0],
      id: 'svc_big',
      requirements: [{ type: 'staff', resource_ids: many.map((r) => r.id) }],
    };
    const tiny = (serviceId: string, ids: readonly string[]) => slotTag(serviceId, ids).slice(0, 1);
    const all = new Map([...resources, ...many.map((r) => [r.id, r] as const)]);
    const clash = findSlotTagClash([big], all, tiny);
    expect(clash).toBeInstanceOf(SlotTagClash);
    expect(clash!.first.serviceId).toBe('svc_big');
    expect(clash!.second.serviceId).toBe('svc_big');
    expect(clash!.first.resourceIds).not.toEqual(clash!.second.resourceIds);
    expect(tiny('svc_big', clash!.first.resourceIds)).toBe(tiny('svc_big', clash!.second.resourceIds));
    expect(clash!.message).toContain(JSON.stringify(clash!.first.resourceIds));
    expect(clash!.message).toContain(JSON.stringify(clash!.second.resourceIds));
    expect(() => slotTagIndex(big, all, tiny)).toThrow(SlotTagClash);
  });

  test('a clash across two services is found too (a tag names at most one combination of the business)', () => {
    const collide = (serviceId: string, ids: readonly string[]) =>
      ids.includes('res_stylist_ava') && (serviceId === 'svc_haircut' || serviceId === 'svc_color_consult')
        ? 'same-tag'
        : slotTag(serviceId, ids);
    const clash = findSlotTagClash(def.services, resources, collide);
    expect(clash).toMatchObject({
      tag: 'same-tag',
      first: { serviceId: 'svc_haircut', resourceIds: ['res_stylist_ava'] },
      second: { serviceId: 'svc_color_consult', resourceIds: ['res_stylist_ava'] },
    });
    expect(clash!.message).toMatch(/rename one of those resources or services/);
  });
});
