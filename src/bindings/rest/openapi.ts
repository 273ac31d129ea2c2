/**
 * Our own OpenAPI 3.1 document, generated from the operations table and our input schemas, served
 * at /openapi.json. Response shapes are described by reference to the protocol's published schemas.
 */
import { z } from 'zod';
import { OPERATIONS, USP_VERSION, jsonDoorRows, type OperationDef } from '../../operations/index.js';

export function buildOpenApi(
  baseUrl: string,
  operations: readonly OperationDef[] = OPERATIONS,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of jsonDoorRows(operations)) {
    const params: Array<Record<string, unknown>> = [];
    for (const m of op.rest.path.matchAll(/\{(\w+)\}/g))
      params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    params.push({
      name: 'USP-Agent',
      in: 'header',
      required: op.access !== 'public',
      schema: { type: 'string' },
      description: 'RFC 8941 dictionary: profile="https://..."',
    });
    if (op.mutating)
      params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } });
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
      security: op.access === 'public' ? [] : Object.keys(SECURITY_SCHEMES).map((k) => ({ [k]: [] })),
      responses: responsesOf(op),
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
      const old = {
        ...entry,
        operationId: `${op.name}_former`,
        deprecated: true,
        summary: `Deprecated until ${op.formerly!.until}: use ${op.rest.method} ${op.rest.path}. ${op.summary}`,
      };
      paths[former.path] = { ...(paths[former.path] ?? {}), [former.method.toLowerCase()]: old };
    }
  }
  paths['/.well-known/usp'] = {
    get: {
      operationId: 'get_business_profile',
      summary: 'The business profile.',
      security: [],
      responses: {
        '200': {
          description: 'Profile',
          content: { 'application/json': { schema: { $ref: `${SPEC}/profile.json#/$defs/BusinessProfile` } } },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'usp-server REST binding',
      version: USP_VERSION,
      description: 'Universal Scheduling Protocol business endpoints.',
    },
    servers: [{ url: baseUrl }],
    paths,
    webhooks: WEBHOOKS,
    components: { schemas: COMPONENT_SCHEMAS, securitySchemes: SECURITY_SCHEMES },
  };
}

const SPEC = 'https://usp-protocol.dev/schemas';

/** The envelope and the messages every answer carries (spec 8.3 step 5, 9.4). */
const COMPONENT_SCHEMAS = {
  USPEnvelope: { $ref: `${SPEC}/usp.json#/$defs/USPEnvelope` },
  Message: {
    type: 'object',
    required: ['type', 'content'],
    properties: {
      type: { enum: ['error', 'warning', 'info'] },
      code: { type: 'string' },
      content: { type: 'string' },
      severity: { type: 'string' },
      path: { type: 'string' },
    },
  },
  ProblemDetails: { $ref: `${SPEC}/rest_common.json#/$defs/ProblemDetails` },
};

/** How a platform authenticates (spec 10.1.6), named as the official OpenAPI document names them. */
const SECURITY_SCHEMES = {
  PlatformKeyPop: {
    type: 'apiKey',
    in: 'header',
    name: 'DPoP',
    description: 'platform_key_pop: an RFC 9449 DPoP proof by the platform key.',
  },
  BookingScopedCredential: {
    type: 'http',
    scheme: 'DPoP',
    description: 'A booking-scoped credential (Authorization: DPoP <credential>) with its proof.',
  },
  HttpMessageSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Signature',
    description:
      'RFC 9421 signature by a key the platform profile publishes (with Signature-Input and Content-Digest).',
  },
  OAuth2Bearer: {
    type: 'http',
    scheme: 'bearer',
    description: "An access token from this business's authorization server.",
  },
  ApiKey: { type: 'http', scheme: 'bearer', description: 'An API key issued by the business.' },
};

/** What the business POSTs to a platform's webhook_url (spec 5.4), signed with RFC 9421. */
const WEBHOOKS = {
  uspEvent: {
    post: {
      summary: 'A booking or catalog event, signed (RFC 9421, Content-Digest) by a key in the business profile.',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `${SPEC}/webhook_event.json` } } },
      },
      responses: { '200': { description: 'Received. Any 2xx stops the retries.' } },
    },
  },
};

const problem = {
  description: 'Protocol error (RFC 9457 problem details).',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
};

/** The answer's schema: the envelope, the operation's members (its row's `output`) and messages[]. */
function answerSchema(op: OperationDef, required: readonly string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    usp: { $ref: '#/components/schemas/USPEnvelope' },
    ...((op.output ?? {}) as Record<string, unknown>),
    messages: { type: 'array', items: { $ref: '#/components/schemas/Message' } },
  };
  return { type: 'object', required: ['usp', ...required], properties };
}

function responsesOf(op: OperationDef): Record<string, unknown> {
  const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });
  const out: Record<string, unknown> = {};
  if (op.empty) out['204'] = { description: 'Done.' };
  else if (op.creates) {
    out['201'] = { description: 'Created.', content: json(answerSchema(op, [])) };
    // A creation that meets a business outcome (slot taken, window closed) answers 200 with messages[].
    out['200'] = {
      description: 'Not created: a business outcome in messages[].',
      content: json(answerSchema(op, ['messages'])),
    };
  } else
    out['200'] = { description: 'Success, or a business outcome in messages[].', content: json(answerSchema(op, [])) };
  // An id in the path that names nothing the caller may see (spec-next 9.4.1, 9.4.3).
  if (op.rest && /\{\w+\}/.test(op.rest.path))
    out['404'] = {
      ...problem,
      description: 'The id in the path names nothing this caller may see (e.g. booking-not-found).',
    };
  out.default = problem;
  return out;
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
