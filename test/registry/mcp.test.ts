/**
 * The registry's six MCP tools: listed with the official names and required parameters, described
 * for a model, and their results valid against the official OpenRPC result schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_OPERATIONS, silentLogger } from '../../src/operations/index.js';
import { mcpTools } from '../../src/bindings/mcp/index.js';
import { callTool } from '../../src/bindings/mcp/server.js';
import { REGISTRY_INSTRUCTIONS } from '../../src/bindings/mcp/index.js';
import { createRegistryServer, seedDemoRegistry, type RegistryServer } from '../../src/server/registry.js';
import { loadBusinessFile } from '../../src/server/business-file.js';
import { describeConformance, openrpcMethod, validateMcpResult } from '../support/spec.js';
import { join } from 'node:path';

let server: RegistryServer;
const deps = () => ({
  pipeline: server.pipeline,
  operations: REGISTRY_OPERATIONS,
  instructions: REGISTRY_INSTRUCTIONS,
});
beforeAll(async () => {
  server = await createRegistryServer({
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    reindexPollMs: 0,
    sweepIntervalMs: 0,
  });
  await seedDemoRegistry(
    server,
    await loadBusinessFile(join(import.meta.dirname, '../../src/server/demo-business.json')),
    'http://localhost:8787/.well-known/usp',
  );
});
afterAll(() => server.close());

describeConformance('registry MCP tools against the official OpenRPC', () => {
  const names = [
    'usp_registry_register',
    'usp_registry_search_business',
    'usp_registry_search_services',
    'usp_registry_get',
    'usp_registry_update',
    'usp_registry_delete',
  ];

  it('the registry serves exactly the six usp_registry_* tools, each with every official parameter, required as the OpenRPC requires it except the server-supplied _meta', () => {
    const tools = mcpTools(REGISTRY_OPERATIONS);
    expect([...tools.keys()].sort()).toEqual([...names].sort());
    for (const name of names) {
      const schema = tools.get(name)!.tool.inputSchema as { properties: Record<string, unknown>; required: string[] };
      for (const p of openrpcMethod(name).params as Array<{ name: string; required?: boolean }>) {
        expect(Object.keys(schema.properties), `${name} ${p.name}`).toContain(p.name);
        // `_meta` the server can supply (the profile on stdio and with a token), so a model is never told to invent it (DECISIONS, "What an assistant reads").
        if (p.required && p.name !== '_meta') expect(schema.required, `${name} requires ${p.name}`).toContain(p.name);
      }
    }
  });

  it('search descriptions tell a model to go to the business itself before booking', () => {
    for (const name of ['usp_registry_search_services', 'usp_registry_search_business', 'usp_registry_get']) {
      expect(mcpTools(REGISTRY_OPERATIONS).get(name)!.tool.description).toMatch(/profile_url/);
    }
  });

  it.each([
    [
      'usp_registry_search_services',
      {
        location: { coordinates: { lat: 40.73, lng: -74.0 }, radius_km: 10 },
        price_range: { max: 20000, currency: 'USD' },
      },
    ],
    ['usp_registry_search_services', { query: 'nothing like this' }],
    ['usp_registry_search_services', {}],
    ['usp_registry_search_business', { categories: ['wellness'] }],
    ['usp_registry_get', { id: 'reg_demo_sf_yoga' }],
  ])('%s answers a result valid against the official schema (%j)', async (tool, args) => {
    const result = (await callTool(deps(), { name: tool, arguments: args }, undefined, null, server.scope)) as {
      structuredContent: unknown;
      content: Array<{ text: string }>;
    };
    expect(validateMcpResult(tool, result.structuredContent)).toEqual([]);
    expect(result.content[0].text.length).toBeGreaterThan(0);
  });

  it('a place, price and category search over MCP finds the demo salon, naming its profile', async () => {
    const result = (await callTool(
      deps(),
      {
        name: 'usp_registry_search_services',
        arguments: {
          location: { coordinates: { lat: 40.7251, lng: -74.0079 }, radius_km: 3 },
          categories: ['cat_hair'],
          price_range: { max: 20000, currency: 'USD' },
        },
      },
      undefined,
      null,
      server.scope,
    )) as { structuredContent: { services: Array<Record<string, any>> } };
    const services = result.structuredContent.services;
    expect(services.length).toBeGreaterThan(0);
    expect(services.every((s) => s.business.profile_url === 'http://localhost:8787/.well-known/usp')).toBe(true);
  });

  it('an unknown registration is a not_found error on MCP', async () => {
    await expect(
      callTool(deps(), { name: 'usp_registry_get', arguments: { id: 'reg_missing' } }, undefined, null, server.scope),
    ).rejects.toMatchObject({
      data: expect.objectContaining({ code: 'registration_not_found' }),
    });
  });
});

describe('the registry profile', () => {
  it('declares the discovery registry capability and the registry endpoints', async () => {
    const res = await server.app.request('/.well-known/usp');
    const doc = (await res.json()) as Record<string, any>;
    expect(Object.keys(doc.usp.capabilities)).toEqual(['dev.usp-protocol.discovery.registry']);
    expect(doc.usp.services['dev.usp-protocol.discovery'].map((b: any) => b.transport)).toEqual(['rest', 'mcp']);
  });
});
