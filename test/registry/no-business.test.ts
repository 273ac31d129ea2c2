/**
 * The registry role has no business at all, not a fake one: its server carries none, its scope
 * serves none, its operations run with a context that has no `biz` (and cannot name one: the type
 * says so), and a business operation handed to its scope is refused rather than run on nothing.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { REGISTRY_OPERATIONS, operationByName, silentLogger, type OperationDef } from '../../src/operations/index.js';
import { defineRegistryOperation } from '../../src/operations/core/define.js';
import { createRegistryServer, type RegistryServer } from '../../src/server/registry.js';

let server: RegistryServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the registry role has no business', () => {
  test('no business on the server or its scope; its operations get a context without biz', async () => {
    server = await createRegistryServer({
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
    });
    expect('biz' in server).toBe(false);
    expect(server.scope.business).toBeUndefined();

    const search = REGISTRY_OPERATIONS.find((o) => o.name === 'search_businesses')!;
    const seen: { keys?: string[] } = {};
    const watched: OperationDef = {
      ...search,
      handle: (input, ctx) => ((seen.keys = Object.keys(ctx)), search.handle(input, ctx)),
    };
    const res = await server.pipeline.execute(watched, { input: { query: 'salon' } }, server.scope);
    expect(res.ok).toBe(true);
    expect(seen.keys).toContain('tx');
    expect(seen.keys).not.toContain('biz');
  });

  test('a business operation on the registry scope is refused, not run without a business', async () => {
    server = await createRegistryServer({
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
    });
    const res = await server.pipeline.execute(operationByName('list_services'), { input: {} }, server.scope);
    expect(res.ok ? 'ok' : res.error.code).toBe('server_error');
  });

  test('a registry operation cannot read a business (checked by the compiler)', () => {
    const op = defineRegistryOperation({
      name: 'test_registry_read',
      rest: { method: 'GET', path: '/test/registry', input: 'none' },
      access: 'public',
      capability: 'dev.usp-protocol.discovery.registry',
      mutating: false,
      conditional: false,
      writes: false,
      summary: 'A test row.',
      input: z.object({}),
      async handle(_input, ctx) {
        // @ts-expect-error: a registry operation's context has no business
        return { data: { name: ctx.biz?.def.business.name ?? null } };
      },
    });
    expect(op.registry).toBe(true);
  });
});
