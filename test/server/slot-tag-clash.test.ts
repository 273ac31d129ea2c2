/**
 * A business in which two resource combinations would share a slot id tag is refused when it is
 * loaded, by `usp-server validate`/`serve` (a BusinessFileError naming the service) and by
 * compileBusiness for a business built in code. A real 48-bit clash cannot be found on demand, so
 * this file replaces the tag function with one that makes two demo combinations collide.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const collide = vi.hoisted(() => ({ on: false }));

vi.mock('../../src/domain/slot-id.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/domain/slot-id.js')>();
  return {
    ...real,
    slotTag: (serviceId: string, resourceIds: readonly string[]) =>
      collide.on && serviceId === 'svc_massage_60' && resourceIds[0] === 'res_therapist_dana'
        ? 'AAAAAAAA'
        : real.slotTag(serviceId, resourceIds),
  };
});

const { BusinessFileError, parseBusinessFile } = await import('../../src/server/business-file.js');
const { compileBusiness } = await import('../../src/operations/business.js');
const { SlotTagClash } = await import('../../src/domain/slot-tags.js');

const demo = () =>
  JSON.parse(readFileSync(fileURLToPath(new URL('../../src/server/demo-business.json', import.meta.url)), 'utf8'));

afterEach(() => {
  collide.on = false;
});

describe('a business whose resource combinations would share a slot id tag is refused when it is loaded', () => {
  it('parseBusinessFile answers a BusinessFileError at the service, naming both combinations', () => {
    collide.on = true;
    const file = demo();
    let err: unknown;
    try {
      parseBusinessFile(file, 'clash.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BusinessFileError);
    const e = err as InstanceType<typeof BusinessFileError>;
    const at = file.services.findIndex((s: { id: string }) => s.id === 'svc_massage_60');
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0].path).toBe(`services[${at}]`);
    expect(e.issues[0].message).toContain('["res_therapist_dana","res_room_treatment_1"]');
    expect(e.issues[0].message).toContain('["res_therapist_dana","res_room_treatment_2"]');
    expect(e.message).toMatch(/^clash\.json: /);
  });

  it('compileBusiness throws SlotTagClash for a business built in code', () => {
    const def = parseBusinessFile(demo(), 'demo.json');
    expect(() => compileBusiness(def)).not.toThrow();
    collide.on = true;
    expect(() => compileBusiness(def)).toThrow(SlotTagClash);
  });
});
