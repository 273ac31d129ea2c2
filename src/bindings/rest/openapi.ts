/**
 * Our own OpenAPI 3.1 document, generated from the operations table and our input schemas, served
 * at /openapi.json. Response shapes are described by reference to the protocol's published schemas.
 */
import { z } from 'zod';
import { OPERATIONS, USP_VERSION, type OperationDef } from '../../operations/index.js';

export function buildOpenApi(baseUrl: string, operations: readonly OperationDef[] = OPERATIONS): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params: Array<Record<string, unknown>> = [];
    for (const m of op.rest.path.matchAll(/\{(\w+)\}/g)) params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    params.push({ name: 'USP-Agent', in: 'header', required: op.access !== 'public', schema: { type: 'string' }, description: 'RFC 8941 dictionary: profile="https://..."' });
    if (op.mutating) params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } });
    if (op.conditional) params.push({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } });
    const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const pathNames = new Set(params.filter((p) => p.in === 'path').map((p) => p.name as string));
    const bodySchema = stripProps(schema, pathNames);
    const entry: Record<string, unknown> = {
      operationId: op.name,
      summary: op.summary,
      'x-usp-access': op.access,
      'x-usp-capability': op.capability,
      ...(op.tool ? { 'x-mcp-tool': op.tool } : {}),
      parameters: params,
      responses: {
        [op.creates ? '201' : op.empty ? '204' : '200']: {
          description: 'Success, or a business outcome in messages[] (HTTP 200).',
        },
        default: { description: 'Protocol error (RFC 9457 problem details).', content: { 'application/problem+json': {} } },
      },
    };
    if (op.rest.input === 'query') {
      const props = (bodySchema.properties ?? {}) as Record<string, unknown>;
      for (const [name, s] of Object.entries(props)) params.push({ name, in: 'query', required: false, schema: s });
    } else if (op.rest.input === 'body') {
      entry.requestBody = { required: true, content: { 'application/json': { schema: bodySchema } } };
    }
    paths[op.rest.path] = { ...(paths[op.rest.path] ?? {}), [op.rest.method.toLowerCase()]: entry };
    const former = op.formerly?.rest;
    if (former) {
      const old = { ...entry, operationId: `${op.name}_former`, deprecated: true, summary: `Deprecated until ${op.formerly!.until}: use ${op.rest.method} ${op.rest.path}. ${op.summary}` };
      paths[former.path] = { ...(paths[former.path] ?? {}), [former.method.toLowerCase()]: old };
    }
  }
  paths['/.well-known/usp'] = { get: { operationId: 'get_business_profile', summary: 'The business profile.', responses: { '200': { description: 'Profile' } } } };
  return {
    openapi: '3.1.0',
    info: { title: 'usp-server REST binding', version: USP_VERSION, description: 'Universal Scheduling Protocol business endpoints.' },
    servers: [{ url: baseUrl }],
    paths,
  };
}

function stripProps(schema: Record<string, unknown>, names: Set<string>): Record<string, unknown> {
  const props = { ...((schema.properties as Record<string, unknown>) ?? {}) };
  for (const n of names) delete props[n];
  const required = ((schema.required as string[]) ?? []).filter((r) => !names.has(r));
  const out: Record<string, unknown> = { ...schema, properties: props };
  delete out.$schema;
  if (required.length > 0) out.required = required;
  else delete out.required;
  return out;
}
