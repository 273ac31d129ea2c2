/**
 * MCP tools generated from the operations table (spec 9.2.1): names, input schemas (our own zod
 * schemas plus the `_meta.usp` wrapper the operation's access tier allows), output schemas and
 * annotations. Built once per process: tool lists are shared constants.
 */
import { z } from 'zod';
import { OPERATIONS, type OperationDef } from '../../operations/index.js';
import { TOOL_DESCRIPTIONS, TOOL_TITLES } from './descriptions.js';
import { REGISTRY_TOOL_DESCRIPTIONS, REGISTRY_TOOL_TITLES } from './registry-descriptions.js';

type Json = Record<string, unknown>;

/** `_meta.usp` members per access tier (openrpc McpUspMeta* wrappers, plus the seed's correlation_id). */
export function metaMembers(op: OperationDef): string[] {
  if (op.access === 'public') return ['profile', 'correlation_id'];
  const m = ['profile'];
  if (op.mutating) m.push('idempotency_key');
  if (op.access !== 'privileged_platform' && op.mutating) m.push('if_match');
  m.push('authorization', 'correlation_id');
  return m;
}

const META_PROPS: Record<string, Json> = {
  profile: { type: 'string', description: 'Your platform profile URL (https). Required on privileged tools.' },
  idempotency_key: { type: 'string', description: 'A UUID v4 you generate once per intended action; reuse it on retries.' },
  if_match: { type: 'string', description: 'The revision you last read; the write is refused if the resource changed since.' },
  correlation_id: { type: 'string', description: 'Optional id to join logs across systems (1-256 visible ASCII characters); echoed back on the result or error.' },
  authorization: {
    type: 'object',
    description: 'Credentials carried in the call: mechanism plus credential and/or proof.',
    properties: {
      mechanism: { type: 'string' },
      credential: { type: 'string' },
      proof: { type: 'string' },
    },
    required: ['mechanism'],
    additionalProperties: false,
  },
};

function metaSchema(op: OperationDef): Json {
  const members = metaMembers(op);
  const usp: Json = {
    type: 'object',
    properties: Object.fromEntries(members.map((m) => [m, META_PROPS[m]])),
    additionalProperties: false,
  };
  if (op.access !== 'public') usp.required = ['profile'];
  return { type: 'object', properties: { usp }, description: 'USP protocol metadata (profile, idempotency key, precondition, credentials).' };
}

/** structuredContent's shape: `usp`, the members the operation's row declares, and `messages`. */
function outputSchema(op: OperationDef): Json {
  if (!op.output) throw new Error(`operation ${op.name} has an MCP tool but no output members on its row`);
  const payload = op.output;
  return {
    type: 'object',
    properties: {
      usp: { type: 'object', properties: { version: { type: 'string' }, capabilities: { type: 'object' } }, required: ['version'] },
      ...payload,
      messages: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, code: { type: 'string' }, content: { type: 'string' } }, required: ['type', 'content'] } },
    },
    required: ['usp', 'messages'],
  };
}

export interface ToolEntry {
  op: OperationDef;
  tool: {
    name: string;
    title: string;
    description: string;
    inputSchema: Json;
    outputSchema: Json;
    annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  };
}

function buildTool(op: OperationDef): ToolEntry {
  const name = op.tool!;
  const input = z.toJSONSchema(op.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Json;
  delete input.$schema;
  const properties = { ...((input.properties as Json) ?? {}), _meta: metaSchema(op) };
  const required = [...((input.required as string[]) ?? [])];
  if (op.access !== 'public') required.push('_meta');
  const title = TOOL_TITLES[name] ?? REGISTRY_TOOL_TITLES[name] ?? name;
  return {
    op,
    tool: {
      name,
      title,
      description: TOOL_DESCRIPTIONS[name] ?? REGISTRY_TOOL_DESCRIPTIONS[name] ?? op.summary,
      inputSchema: { ...input, type: 'object', properties, required },
      outputSchema: outputSchema(op),
      annotations: {
        title,
        // Read-only from the caller's view: reads that take a write transaction for lazy expiry still change nothing it asked for.
        readOnlyHint: !op.mutating,
        destructiveHint: op.destructive === true,
        // Idempotent in the MCP sense: repeating the same call has no further effect.
        idempotentHint: !op.mutating || op.idempotent === true,
        openWorldHint: false,
      },
    },
  };
}

const cached = new WeakMap<readonly OperationDef[], ReadonlyMap<string, ToolEntry>>();

/** Every MCP tool of an operation set (default: the business's), keyed by name, in table order. */
export function mcpTools(operations: readonly OperationDef[] = OPERATIONS): ReadonlyMap<string, ToolEntry> {
  let tools = cached.get(operations);
  if (!tools) {
    tools = new Map(operations.filter((op) => op.tool).map((op) => [op.tool!, buildTool(op)] as const));
    cached.set(operations, tools);
  }
  return tools;
}
