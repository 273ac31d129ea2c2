/**
 * Self-tests for the conformance harness (test/support/spec.ts): they prove the
 * validators are wired to the official artifacts and can fail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import {
  D17_ORIGINAL_PATTERN,
  D17_WIDENED_PATTERN,
  assertValid,
  createSpecAjv,
  d17WidenedCount,
  describeConformance,
  formatErrors,
  mcpToolAccess,
  mcpToolNames,
  openapiDoc,
  openrpcDoc,
  openrpcMethod,
  popVectors,
  readSpecJson,
  restOperations,
  restRequestSchema,
  schemaDefUri,
  specDir,
  specNote,
  specSchemas,
  validateMcpParams,
  validateMcpResult,
  validateMcpResultEnvelope,
  validateRestResponse,
  validateSchemaDef,
} from '../support/spec.js';

type Json = any;
const USP_VERSION = '2026-08-20';

function businessProfileExamples(): Array<[string, Json]> {
  // Also called at collection time (it.each), which runs even inside describe.skip.
  if (!specDir) return [];
  const scenarios = readSpecJson('playground/scenarios/business-profile.json') as Record<string, Json>;
  return Object.entries(scenarios).map(([name, s]) => [name, s.response]);
}

/** A catalog Service taken from the spec's own playground (services.json, happy_path). */
function playgroundService(): Json {
  const scenarios = readSpecJson('playground/scenarios/services.json') as Record<string, Json>;
  return structuredClone(scenarios.happy_path.response.body.services[0]);
}

function methodsWithExamples(): Json[] {
  return (openrpcDoc().methods as Json[]).filter((m) => Array.isArray(m.examples) && m.examples.length > 0);
}

describeConformance('conformance harness: artifacts and loading', () => {
  it('locates the official artifacts', () => {
    expect(specDir).not.toBeNull();
    expect(specNote).toBeNull();
    expect([...specSchemas().keys()]).toContain('usp.json');
    expect(openapiDoc().openapi).toMatch(/^3\.1/);
    expect(openrpcDoc().openrpc).toBeTruthy();
  });

  it('D17: widens exactly the hyphen-less key pattern, leaving the files on disk untouched', () => {
    expect(d17WidenedCount()).toBeGreaterThan(0);
    const loaded = JSON.stringify([...specSchemas().values()]);
    expect(loaded).not.toContain(JSON.stringify(D17_ORIGINAL_PATTERN));
    expect(loaded).toContain(JSON.stringify(D17_WIDENED_PATTERN));
    const onDisk = fs.readFileSync(path.join(specDir!, 'schemas', 'usp.json'), 'utf8');
    expect(onDisk).toContain(JSON.stringify(D17_ORIGINAL_PATTERN));
  });

  it('every $def of every schema file compiles (all cross-file refs resolve)', () => {
    let count = 0;
    for (const [file, schema] of specSchemas()) {
      for (const def of Object.keys(schema.$defs ?? {})) {
        expect(() => validateSchemaDef(file, def, null), `${file}#/$defs/${def}`).not.toThrow();
        count++;
      }
    }
    expect(count).toBeGreaterThan(50);
    // files live under different folders of the $id space; both spellings work
    expect(schemaDefUri('booking.json', 'Booking')).toBe(
      'https://usp-protocol.dev/schemas/services/booking.json#/%24defs/Booking',
    );
    expect(schemaDefUri('services/booking.json')).toBe('https://usp-protocol.dev/schemas/services/booking.json');
  });
});

describeConformance('conformance harness: JSON Schema validation', () => {
  it.each(businessProfileExamples())(
    'spec example business profile "%s" is a valid BusinessProfile',
    (_name, profile) => {
      assertValid(validateSchemaDef('profile.json', 'BusinessProfile', profile), 'BusinessProfile');
    },
  );

  it('the same examples fail the unmodified official schemas (they pass only thanks to D17)', () => {
    const raw = createSpecAjv({ widenKeyPatterns: false });
    const validate = raw.getSchema(schemaDefUri('profile.json', 'BusinessProfile'))!;
    for (const [name, profile] of businessProfileExamples()) {
      expect(validate(profile), name).toBe(false);
      const errors = formatErrors(validate.errors);
      expect(errors.some((e) => e.includes('dev.usp-protocol.'))).toBe(true);
    }
  });

  it('a profile missing `usp` is rejected', () => {
    const [, profile] = businessProfileExamples()[0];
    const { usp: _usp, ...withoutUsp } = profile;
    const errors = validateSchemaDef('profile.json', 'BusinessProfile', withoutUsp);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/usp/);
    expect(() => assertValid(errors, 'BusinessProfile')).toThrow(/BusinessProfile: \d+ schema error/);
  });

  it('assertValid lists every error and passes on none', () => {
    expect(() => assertValid([], 'x')).not.toThrow();
    expect(() => assertValid(['/a must be string', '/b must be integer'], 'thing')).toThrow(
      /thing: 2 schema error\(s\)[\s\S]*\/a must be string[\s\S]*\/b must be integer/,
    );
  });

  it('the playground Service validates as catalog Service; a broken one does not', () => {
    assertValid(validateSchemaDef('catalog.json', 'Service', playgroundService()), 'Service');
    const broken = { ...playgroundService(), id: 42 };
    expect(validateSchemaDef('catalog.json', 'Service', broken)).not.toEqual([]);
  });

  it('credentials in the PoP vectors validate as BookingScopedCredential', () => {
    const withCredential = popVectors().filter(({ vector }) => vector.credential !== undefined);
    expect(withCredential.length).toBeGreaterThan(0);
    for (const { file, vector } of withCredential) {
      assertValid(validateSchemaDef('profile.json', 'BookingScopedCredential', vector.credential), file);
    }
  });
});

describeConformance('conformance harness: OpenAPI (REST) responses', () => {
  const minimalList = {
    usp: { version: USP_VERSION },
    services: [],
    pagination: { cursor: null, has_more: false },
  };

  it('accepts a correct minimal POST /services/list 200 body', () => {
    assertValid(validateRestResponse('POST', '/services/list', 200, minimalList), 'services/list');
    assertValid(
      validateRestResponse('post', '/services/list', 200, { ...minimalList, services: [playgroundService()] }),
      'services/list with one service',
    );
  });

  it('rejects a POST /services/list 200 body missing `services`', () => {
    const { services: _s, ...body } = minimalList;
    const errors = validateRestResponse('POST', '/services/list', 200, body);
    expect(errors.join('\n')).toMatch(/services/);
  });

  it('rejects a list body missing pagination.has_more or usp.version', () => {
    expect(
      validateRestResponse('POST', '/services/list', 200, { ...minimalList, pagination: { cursor: null } }),
    ).not.toEqual([]);
    expect(validateRestResponse('POST', '/services/list', 200, { ...minimalList, usp: {} })).not.toEqual([]);
  });

  it('reports an undocumented status, path or method', () => {
    expect(validateRestResponse('POST', '/services/list', 418, {})).toEqual([
      expect.stringMatching(/status 418 is not documented for POST \/services\/list/),
    ]);
    expect(validateRestResponse('POST', '/nope', 200, {})[0]).toMatch(/no path/);
    expect(validateRestResponse('PATCH', '/services/list', 200, {})[0]).toMatch(/no operation/);
  });

  it('follows components.responses $refs to problem+json schemas', () => {
    const problem = { type: 'https://usp-protocol.dev/errors/not-found', title: 'Not found', status: 404 };
    assertValid(validateRestResponse('GET', '/bookings/{booking_id}', 404, problem), 'problem');
    expect(validateRestResponse('GET', '/bookings/{booking_id}', 404, { title: 'Not found' })).not.toEqual([]);
  });

  it('a bodiless response (204) accepts no body and rejects a body', () => {
    expect(validateRestResponse('DELETE', '/registry/businesses/{id}', 204, undefined)).toEqual([]);
    expect(validateRestResponse('DELETE', '/registry/businesses/{id}', 204, { ok: true })[0]).toMatch(/no JSON body/);
  });

  it("every documented response compiles and the OpenAPI document's own examples validate", () => {
    let examples = 0;
    const doc = openapiDoc();
    for (const op of restOperations()) {
      for (const status of op.statuses) {
        let resp = doc.paths[op.path][op.method.toLowerCase()].responses[status];
        if (resp.$ref) resp = doc.components.responses[resp.$ref.split('/').pop()];
        expect(() => validateRestResponse(op.method, op.path, Number(status), {})).not.toThrow();
        for (const media of Object.values<Json>(resp.content ?? {})) {
          const values = [
            ...(media.example !== undefined ? [media.example] : []),
            ...Object.values<Json>(media.examples ?? {}).map((e) => e.value),
          ];
          for (const value of values) {
            assertValid(
              validateRestResponse(op.method, op.path, Number(status), value),
              `${op.method} ${op.path} ${status}`,
            );
            examples++;
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(0);
  });

  it('restRequestSchema returns a deep-resolved request body schema', () => {
    const schema = restRequestSchema('POST', '/bookings');
    expect(JSON.stringify(schema)).not.toContain('"$ref"');
    expect(schema.required).toEqual(expect.arrayContaining(['service_id', 'slot_id', 'buyer']));
    expect(schema.properties.buyer.required).toEqual(expect.arrayContaining(['email']));
    expect(restRequestSchema('GET', '/bookings/{booking_id}')).toBeUndefined();
    expect(() => restRequestSchema('POST', '/nope')).toThrow(/no path/);
  });
});

describeConformance('conformance harness: OpenRPC (MCP) tools', () => {
  it('lists the tools with their access tiers', () => {
    const names = mcpToolNames();
    expect(names.length).toBeGreaterThanOrEqual(20);
    expect(names).toContain('usp_services_get');
    const access = mcpToolAccess();
    for (const n of names) expect(access[n], n).toMatch(/^(public|privileged_platform|privileged_scoped)$/);
    expect(mcpToolNames('public')).toContain('usp_services_get');
    expect(mcpToolNames('public')).not.toContain('usp_bookings_create');
    expect(mcpToolNames(['privileged_platform', 'privileged_scoped'])).toContain('usp_bookings_create');
    expect(openrpcMethod('usp_services_get')['x-usp-access']).toBe('public');
    expect(() => openrpcMethod('usp_nope')).toThrow(/no method/);
  });

  it('every method result and params schema compiles', () => {
    for (const n of mcpToolNames()) {
      expect(() => validateMcpResult(n, {}), n).not.toThrow();
      expect(() => validateMcpParams(n, {}), n).not.toThrow();
    }
  });

  it('validateMcpResult rejects an obviously wrong structuredContent for usp_services_get', () => {
    expect(validateMcpResult('usp_services_get', { hello: 'world' }).length).toBeGreaterThan(0);
    expect(validateMcpResult('usp_services_get', 'not an object').length).toBeGreaterThan(0);
    expect(
      validateMcpResult('usp_services_get', { usp: { version: USP_VERSION }, service: { id: 1 } }).length,
    ).toBeGreaterThan(0);
  });

  it('validateMcpResult accepts a plausible usp_services_get structuredContent', () => {
    // The OpenRPC methods carry no `examples`, so the service comes from the spec's playground.
    const structuredContent = { usp: { version: USP_VERSION }, service: playgroundService() };
    assertValid(validateMcpResult('usp_services_get', structuredContent), 'usp_services_get');
    assertValid(
      validateMcpResultEnvelope('usp_services_get', {
        structuredContent,
        content: [{ type: 'text', text: 'Swedish Massage' }],
      }),
      'usp_services_get envelope',
    );
    expect(validateMcpResultEnvelope('usp_services_get', { content: [] })).not.toEqual([]);
  });

  it("accepts the OpenRPC methods' own examples, when there are any", () => {
    for (const m of methodsWithExamples()) {
      for (const ex of m.examples) {
        const args = Object.fromEntries((ex.params ?? []).map((p: Json) => [p.name, p.value]));
        assertValid(validateMcpParams(m.name, args), `${m.name} example ${ex.name} params`);
        const value = ex.result?.value;
        if (value !== undefined) {
          const sc =
            value && typeof value === 'object' && 'structuredContent' in value ? value.structuredContent : value;
          assertValid(validateMcpResult(m.name, sc), `${m.name} example ${ex.name} result`);
        }
      }
    }
    // As of 2026-08-20 no method carries `examples`: this loop is a no-op until
    // the spec adds some; the plausible-result test above covers acceptance.
  });

  it('validateMcpParams accepts well-formed arguments', () => {
    assertValid(validateMcpParams('usp_services_get', { service_id: 'svc_massage_001' }), 'get');
    assertValid(
      validateMcpParams('usp_services_get', {
        service_id: 'svc_massage_001',
        _meta: { usp: { profile: 'https://platform.example.com/profile' } },
      }),
      'get with _meta',
    );
    assertValid(
      validateMcpParams('usp_bookings_create', {
        _meta: {
          usp: {
            profile: 'https://platform.example.com/profile',
            idempotency_key: '6f1c2a1e-8d3b-4c5e-9a7f-0b1d2e3f4a5b',
          },
        },
        service_id: 'svc_massage_001',
        slot_id: 'slot_1',
        buyer: { first_name: 'Alice', last_name: 'Williams', email: 'alice@example.com' },
      }),
      'bookings_create',
    );
  });

  it('validateMcpParams rejects missing required params, wrong types and (optionally) extras', () => {
    expect(validateMcpParams('usp_services_get', {}).join('\n')).toMatch(/service_id/);
    expect(validateMcpParams('usp_services_get', { service_id: 7 })).not.toEqual([]);
    expect(
      validateMcpParams('usp_bookings_create', { service_id: 's', slot_id: 'x', buyer: { first_name: 'A' } }),
    ).not.toEqual([]);
    expect(validateMcpParams('usp_services_get', { service_id: 's', extra: 1 })).toEqual([]);
    expect(
      validateMcpParams('usp_services_get', { service_id: 's', extra: 1 }, { additionalProperties: false }).join('\n'),
    ).toMatch(/extra/);
  });
});

describeConformance('conformance harness: PoP test vectors', () => {
  it('finds the ten vectors, sorted by file name, each named after its id', () => {
    const vectors = popVectors();
    expect(vectors).toHaveLength(10);
    const files = vectors.map((v) => v.file);
    expect(files).toEqual([...files].sort());
    for (const { file, vector } of vectors) {
      expect(file).toBe(`${vector.id}.json`);
      expect(['accept', 'reject']).toContain(vector.expect);
    }
  });
});
