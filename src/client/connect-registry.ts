/**
 * A registry behind `usp-server connect --registry URL`: two search tools across the businesses it
 * lists (its own `usp_registry_search_services` and `usp_registry_search_business`, their schemas
 * and descriptions when it offers MCP) and a third, `registry__use_business`, that connects to a
 * business a search of this session returned, so its tools join the session. Only a profile URL a
 * search returned is used (an assistant cannot have connect fetch a URL of its own making), and it
 * is reached under the outbound rules for URLs somebody else chose (`pinnedFetch`): https only
 * (loopback only with `--allow-loopback-profiles`), every address vetted, no redirects.
 */
import { connectHttpMcp } from './mcp-transport.js';

export const REGISTRY_PREFIX = 'registry__';
export const USE_BUSINESS_TOOL = `${REGISTRY_PREFIX}use_business`;

export interface ToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const SEARCHES = {
  [`${REGISTRY_PREFIX}search_services`]: {
    tool: 'usp_registry_search_services',
    path: '/registry/search_services',
    list: 'services',
  },
  [`${REGISTRY_PREFIX}search_businesses`]: {
    tool: 'usp_registry_search_business',
    path: '/registry/search_business',
    list: 'businesses',
  },
} as const;

const OPEN = { type: 'object', additionalProperties: true };

/** The profile URLs a registry answer names (`business.profile_url` of a service, `profile_url` of a business), with their names. */
function businessesIn(body: any): Array<{ profile_url: string; name?: string }> {
  const out: Array<{ profile_url: string; name?: string }> = [];
  for (const s of Array.isArray(body?.services) ? body.services : []) {
    if (typeof s?.business?.profile_url === 'string')
      out.push({ profile_url: s.business.profile_url, name: s.business.name });
  }
  for (const b of Array.isArray(body?.businesses) ? body.businesses : []) {
    if (typeof b?.profile_url === 'string') out.push({ profile_url: b.profile_url, name: b.name });
  }
  return out;
}

export class RegistrySearch {
  /** Profile URLs the registry's answers named this session. */
  private readonly found = new Map<string, string | undefined>();
  readonly origin: string;

  constructor(
    readonly url: string,
    private readonly o: {
      timeoutMs: number;
      /** Connect to a business at a profile URL a search returned; answers the tools added. */
      useBusiness: (profileUrl: string) => Promise<{ name: string; tools: string[] }>;
    },
  ) {
    this.origin = new URL(url).origin;
  }

  /** The tools, described with the registry's own words when it offers MCP at `/mcp`. */
  async tools(): Promise<ToolListing[]> {
    const listed = new Map<string, { description?: string; inputSchema?: Record<string, unknown> }>();
    const mcp = await connectHttpMcp(new URL('/mcp', this.url).toString(), this.o.timeoutMs).catch(() => null);
    const a = await mcp?.request('tools/list').catch(() => null);
    for (const t of a?.result?.tools ?? []) listed.set(t.name, t);
    await mcp?.close();
    const searches = Object.entries(SEARCHES).map(([name, s]) => {
      const t = listed.get(s.tool);
      const schema = { ...(t?.inputSchema ?? OPEN) } as Record<string, any>;
      if (schema.properties?._meta) {
        const { _meta, ...rest } = schema.properties;
        schema.properties = rest;
      }
      return {
        name,
        description: `At the registry ${this.origin}: ${t?.description ?? `search ${s.list} across the businesses it lists`} Results are snapshots; to book, give a result's profile_url to ${USE_BUSINESS_TOOL}.`,
        inputSchema: schema,
      };
    });
    return [
      ...searches,
      {
        name: USE_BUSINESS_TOOL,
        description: `Book at a business a search at the registry ${this.origin} found: give its profile_url, and that business's tools are added to this session (named after it).`,
        inputSchema: {
          type: 'object',
          properties: {
            profile_url: { type: 'string', description: 'The profile_url of a business in a search result.' },
          },
          required: ['profile_url'],
          additionalProperties: false,
        },
      },
    ];
  }

  handles(name: string): boolean {
    return name in SEARCHES || name === USE_BUSINESS_TOOL;
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (name === USE_BUSINESS_TOOL) return this.use(args.profile_url);
    const search = SEARCHES[name as keyof typeof SEARCHES];
    let body: any;
    try {
      const res = await fetch(new URL(search.path, this.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(args),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      body = await res.json().catch(() => null);
      if (!res.ok || !body)
        return failed(
          `The registry ${this.origin} answered HTTP ${res.status}${body?.detail ? `: ${body.detail}` : ''}.`,
        );
    } catch (err) {
      return failed(`The registry ${this.origin} could not be reached: ${(err as Error).message}`);
    }
    for (const b of businessesIn(body)) this.found.set(b.profile_url, b.name);
    const { usp: _usp, ...data } = body as Record<string, unknown>;
    return {
      content: [{ type: 'text', text: JSON.stringify(data) }],
      structuredContent: { registry: this.origin, ...data },
    };
  }

  private async use(profileUrl: unknown): Promise<ToolResult> {
    if (typeof profileUrl !== 'string' || !this.found.has(profileUrl)) {
      return failed(
        `${JSON.stringify(profileUrl)} is not the profile_url of a business a search at the registry ${this.origin} returned in this session; search first.`,
      );
    }
    try {
      const added = await this.o.useBusiness(profileUrl);
      return {
        content: [
          { type: 'text', text: `${added.name}: ${added.tools.length} tools added (${added.tools.join(', ')}).` },
        ],
        structuredContent: { business: added.name, profile_url: profileUrl, tools: added.tools },
      };
    } catch (err) {
      const e = err as Error & { code?: string };
      return failed(
        `${this.found.get(profileUrl) ?? profileUrl} could not be used: ${e.code ? `${e.code}: ` : ''}${e.message}`,
      );
    }
  }
}

const failed = (text: string): ToolResult => ({ content: [{ type: 'text', text }], isError: true });
