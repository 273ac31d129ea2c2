/**
 * A business is a series of frozen snapshots: a call that started with snapshot N finishes with
 * snapshot N while the stored definition changes and the live business adopts N+1 meanwhile; the
 * next call gets N+1. Nothing the old snapshot said changes under the call holding it.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  importDefinition,
  silentLogger,
  type Business,
  type LiveBusiness,
  type OperationDef,
} from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A read whose handler waits for `release` between two looks at its business. */
function slowRead(
  seen: { before?: string; after?: string; biz?: Business },
  reached: () => void,
  release: Promise<void>,
): OperationDef {
  return {
    name: 'test_slow_read',
    rest: { method: 'GET', path: '/test/slow', input: 'none' },
    access: 'public',
    capability: 'dev.usp-protocol.services.catalog',
    mutating: false,
    conditional: false,
    writes: false,
    summary: 'A test read.',
    input: z.object({}),
    async handle(_input, ctx) {
      seen.biz = ctx.biz;
      seen.before = ctx.biz.def.business.name;
      reached();
      await release;
      seen.after = ctx.biz.def.business.name;
      return { data: { name: ctx.biz.def.business.name } };
    },
  } as OperationDef;
}

describe('a call keeps the business snapshot it started with', () => {
  test('an adopt during the call publishes a new snapshot; the call finishes with the old one, the next call sees the new one', async () => {
    const def = demoBusiness();
    server = await createUspServer({
      business: def,
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      oauth: false,
    });
    const seen: { before?: string; after?: string; biz?: Business } = {};
    let reached!: () => void;
    const atHandler = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    const op = slowRead(seen, reached, new Promise<void>((r) => (release = r)));

    const call = server.pipeline.execute(op, { input: {} }, server.scope);
    await atHandler;
    const old = server.biz;
    expect(Object.isFrozen(old)).toBe(true);
    // A new definition is adopted meanwhile (as a refresh does when another process stored one).
    (server.scope.business as LiveBusiness).adopt(
      { ...def, business: { ...def.business, name: 'Renamed Salon' } },
      old.definitionVersion + 1,
    );
    expect(server.biz.def.business.name).toBe('Renamed Salon');
    expect(server.biz).not.toBe(old);
    release();
    const res = await call;

    expect(seen.before).toBe(def.business.name);
    expect(seen.after).toBe(def.business.name);
    expect(res.ok && res.data.name).toBe(def.business.name);
    // The door describes the answer with the snapshot the call ran with.
    expect(res.ok && res.business).toBe(seen.biz);
    expect(old.def.business.name).toBe(def.business.name);

    // The store holds the new definition too: the next call, refreshed from it, runs with the new snapshot.
    await server.store.transaction((tx) =>
      importDefinition(tx, { ...def, business: { ...def.business, name: 'Renamed Salon' } }),
    );
    const next = slowRead({}, () => undefined, Promise.resolve());
    const again = await server.pipeline.execute(next, { input: {} }, server.scope);
    expect(again.ok && again.data.name).toBe('Renamed Salon');
  });
});
