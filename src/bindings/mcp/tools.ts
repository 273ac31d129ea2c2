/**
 * MCP tools generated from the operations table (spec 9.2.1): names, input schemas (our own zod
 * schemas plus the `_meta.usp` wrapper the operation's access tier allows), output schemas and
 * annotations. Built once per process: tool lists are shared constants.
 */
import { z } from 'zod';
import { OPERATIONS, jsonDoorRows, type OperationDef } from '../../operations/index.js';
import { TOOL_DESCRIPTIONS, TOOL_TITLES } from './descriptions.js';
import { REGISTRY_TOOL_DESCRIPTIONS, REGISTRY_TOOL_TITLES } from './registry-descriptions.js';
import { toolViewMeta } from './app-views.js';

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

/**
 * What a model reads of `_meta.usp`: the members it may have to send, each said in a few words,
 * and nothing required. The profile is supplied by the server on stdio and taken from an OAuth
 * token's binding, and a missing idempotency key is generated (and returned in `_meta.usp`), so a
 * model that sends nothing is never refused for it. `authorization` and `correlation_id` are the
 * host's machinery, named once in the server instructions rather than described in every tool:
 * the same schema repeated in every tool was a third of `tools/list`. The server still refuses a
 * member the tier does not allow (readMeta), so the closed set is enforced where it matters.
 */
const META_PROPS: Record<string, Json> = {
  idempotency_key: { type: 'string', description: 'Made if omitted.' },
  if_match: { type: 'string', description: 'Revision last read.' },
};

const metaSchemas = new Map<string, Json>();

function metaSchema(op: OperationDef): Json {
  const members = metaMembers(op);
  // if_match is shown only where it is checked (a conditional write); elsewhere it is accepted and ignored.
  const said = (m: string) => META_PROPS[m] !== undefined && (m !== 'if_match' || op.conditional);
  const key = `${members.join(',')}|${op.conditional}`;
  let schema = metaSchemas.get(key);
  if (!schema) {
    const shown = members.filter(said);
    // The other members (profile, authorization, correlation_id) are named once, in the server instructions.
    const usp: Json = { type: 'object' };
    if (shown.length) usp.properties = Object.fromEntries(shown.map((m) => [m, META_PROPS[m]]));
    schema = { type: 'object', properties: { usp } };
    metaSchemas.set(key, schema);
  }
  return schema;
}

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * Drops what only bloats a schema a model reads: the long regex zod writes beside a format
 * (email, date, uri), zod's safe-integer bounds, string property names, "not empty" on strings,
 * and length ceilings no real value comes near (200 characters and more). The server still
 * validates every one of them.
 */
function trim(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(trim);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Json;
  if (typeof n.format === 'string') delete n.pattern;
  if (typeof n.maxLength === 'number' && n.maxLength >= 200) delete n.maxLength;
  if (n.minLength === 1) delete n.minLength;
  if (n.minimum === -SAFE_INTEGER) delete n.minimum;
  if (n.maximum === SAFE_INTEGER) delete n.maximum;
  if ((n.propertyNames as Json | undefined)?.type === 'string' && Object.keys(n.propertyNames as Json).length === 1)
    delete n.propertyNames;
  for (const v of Object.values(n)) trim(v);
}

/**
 * structuredContent's shape: the members the operation's row declares. `usp` and `messages`, in
 * every result alike, are said once in the server's instructions rather than in each of thirty
 * tools (they were a twentieth of `tools/list`); the schema stays open, so they validate.
 */
function outputSchema(op: OperationDef): Json {
  if (!op.output) throw new Error(`operation ${op.name} has an MCP tool but no output members on its row`);
  return { type: 'object', properties: { ...op.output } };
}

export interface ToolEntry {
  op: OperationDef;
  /** Set on an operation's former tool name (`formerly` on its row): callable, not in tools/list. */
  former?: { use: string };
  tool: {
    name: string;
    title: string;
    description: string;
    inputSchema: Json;
    outputSchema: Json;
    annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
    /** MCP Apps: the view a host renders the result in (`ui.resourceUri`), from the row's `view`. */
    _meta?: { ui: { resourceUri: string } };
  };
}

function buildTool(op: OperationDef): ToolEntry {
  const name = op.tool!;
  const input = z.toJSONSchema(op.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Json;
  delete input.$schema;
  trim(input);
  const properties = { ...((input.properties as Json) ?? {}), _meta: metaSchema(op) };
  const required = [...((input.required as string[]) ?? [])];
  const title = TOOL_TITLES[name] ?? REGISTRY_TOOL_TITLES[name] ?? name;
  return {
    op,
    tool: {
      name,
      title,
      description: TOOL_DESCRIPTIONS[name] ?? REGISTRY_TOOL_DESCRIPTIONS[name] ?? op.summary,
      inputSchema: { ...input, type: 'object', properties, ...(required.length ? { required } : {}) },
      outputSchema: outputSchema(op),
      // A read-only tool's destructive and idempotent hints mean nothing (MCP): only the writes carry them.
      annotations: op.mutating
        ? {
            readOnlyHint: false,
            destructiveHint: op.destructive === true,
            idempotentHint: op.idempotent === true,
            openWorldHint: false,
          }
        : { readOnlyHint: true, openWorldHint: false },
      ...(op.view ? { _meta: toolViewMeta(op.view) } : {}),
    },
  };
}

const cached = new WeakMap<readonly OperationDef[], ReadonlyMap<string, ToolEntry>>();

/**
 * Every MCP tool of an operation set (default: the business's), keyed by name, in table order, with
 * the former names rows keep for one release (marked `former`; tools/list leaves them out).
 */
export function mcpTools(operations: readonly OperationDef[] = OPERATIONS): ReadonlyMap<string, ToolEntry> {
  let tools = cached.get(operations);
  if (!tools) {
    const entries: Array<[string, ToolEntry]> = [];
    for (const op of jsonDoorRows(operations).filter((o) => o.tool)) {
      const entry = buildTool(op);
      entries.push([op.tool!, entry]);
      const old = op.formerly?.tool;
      if (old)
        entries.push([
          old,
          {
            op,
            former: { use: op.tool! },
            tool: {
              ...entry.tool,
              name: old,
              title: `${entry.tool.title} (deprecated)`,
              description: `Deprecated until ${op.formerly!.until}: use ${op.tool}.`,
            },
          },
        ]);
    }
    tools = new Map(entries);
    cached.set(operations, tools);
  }
  return tools;
}
