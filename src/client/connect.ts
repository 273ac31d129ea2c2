/**
 * `usp-server connect`: a local stdio MCP server for a desktop assistant that fronts several USP
 * businesses as one platform. The platform's keys stay on the person's machine (a file only they
 * read); each business's tools are presented under the business's name; every call goes through
 * the library (proofs, idempotency keys, credentials); each result's text and structured content
 * are relayed. Webhooks come in on a local port (the profile's `webhook_url`), verified, and reach
 * the assistant as a resource it can read (`usp-connect://events`) and a notification that it changed;
 * a business that cannot reach that port (elsewhere, with no `publicOrigin`) is polled instead
 * (connect-poll.ts), and what changed reaches the assistant the same way.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { BusinessClient, memoryCredentials, type CredentialStore } from './client.js';
import { Poller, needsPolling } from './connect-poll.js';
import { RegistrySearch, type ToolListing } from './connect-registry.js';
import { ProfileCache } from './discovery.js';
import { PlatformIdentity } from './identity.js';
import { connectHttpMcp } from './mcp-transport.js';
import { CLIENT_OPERATIONS, type OperationName } from './operations.js';
import { PROFILE_PATH, servePlatform, type PlatformServer } from './server.js';
import { pinnedFetch } from './pinned-fetch.js';
import { WebhookReceiver, type WebhookEvent } from './webhooks.js';

export const EVENTS_URI = 'usp-connect://events';
const MAX_EVENTS = 100;

export interface ConnectOptions {
  businesses: readonly string[];
  /** The file holding the platform's keys (created, readable by its owner only, when absent). */
  identityFile: string;
  host?: string;
  port?: number;
  /** The public origin that reaches the local port (a tunnel), when businesses are elsewhere. */
  publicOrigin?: string;
  credentials?: CredentialStore;
  /**
   * Poll every business this often (seconds) for changes to what the platform booked, webhooks or
   * not. Default: only the businesses that cannot reach the local port (not on loopback, and no
   * `publicOrigin`), every 60 s.
   */
  pollSeconds?: number;
  /** A registry (`usp-server registry` or any USP registry): its searches become tools, and a business they find can be used. */
  registry?: string;
  /** Development only: a business a registry names may be on loopback over http. */
  allowLoopbackProfiles?: boolean;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  log?: (line: string) => void;
}

interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  business: BusinessClient;
  op: OperationName;
}

function loadIdentity(file: string): PlatformIdentity {
  if (existsSync(file)) return PlatformIdentity.load(JSON.parse(readFileSync(file, 'utf8')));
  const identity = new PlatformIdentity();
  saveIdentity(identity, file);
  return identity;
}

function saveIdentity(identity: PlatformIdentity, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(identity.save()), { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** A short tool-name prefix from the business's name (`Maple & Pine Salon` -> `maple_pine_salon`). */
export function slugOf(name: string, taken: Set<string>): string {
  const base =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 24) || 'business';
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}_${n}`;
  taken.add(slug);
  return slug;
}

const BY_TOOL = new Map(Object.entries(CLIENT_OPERATIONS).map(([name, op]) => [op.tool, name as OperationName]));

/** The business's own tool list when it offers MCP (its descriptions and schemas), else one from the client's table. */
async function toolsOf(
  biz: BusinessClient,
  slug: string,
  timeoutMs: number,
  fetcher?: typeof globalThis.fetch,
): Promise<Tool[]> {
  const mcpEndpoint = biz.profile.usp.services?.['dev.usp-protocol.services']?.find(
    (b) => b.transport === 'mcp',
  )?.endpoint;
  const listed = new Map<string, { description?: string; inputSchema?: Record<string, unknown> }>();
  if (mcpEndpoint) {
    const mcp = await connectHttpMcp(mcpEndpoint, timeoutMs, fetcher).catch(() => null);
    const a = await mcp?.request('tools/list').catch(() => null);
    for (const t of a?.result?.tools ?? []) listed.set(t.name, t);
    await mcp?.close();
  }
  const tools: Tool[] = [];
  for (const [name, op] of Object.entries(CLIENT_OPERATIONS) as Array<
    [OperationName, (typeof CLIENT_OPERATIONS)[OperationName]]
  >) {
    if (!biz.offers(name)) continue;
    const t = listed.get(op.tool);
    if (mcpEndpoint && !t) continue;
    const schema = { ...(t?.inputSchema ?? { type: 'object', additionalProperties: true }) } as Record<string, any>;
    if (schema.properties?._meta) {
      const { _meta, ...rest } = schema.properties;
      schema.properties = rest;
    }
    tools.push({
      name: `${slug}__${op.tool}`,
      description: `At ${biz.name} (${new URL(biz.profileUrl).origin}): ${t?.description ?? name.replace(/_/g, ' ')}`,
      inputSchema: schema,
      business: biz,
      op: BY_TOOL.get(op.tool)!,
    });
  }
  return tools;
}

/**
 * The port the identity's profile was last served on, when it was served here on loopback: a
 * business binds the platform's key to the profile URL it first saw, so each run of connect (an
 * assistant starts one per session) must publish the profile at the same URL, or every call after
 * the first session is refused as `profile_binding_mismatch`.
 */
function rememberedPort(identity: PlatformIdentity, host: string): number | undefined {
  try {
    const url = new URL(identity.profileUrl);
    if (url.protocol !== 'http:' || url.hostname !== host || url.pathname !== PROFILE_PATH) return undefined;
    return Number(url.port) || undefined;
  } catch {
    return undefined;
  }
}

async function servePlatformAgain(
  identity: PlatformIdentity,
  o: ConnectOptions,
  receiver: WebhookReceiver,
  log: (line: string) => void,
): Promise<PlatformServer> {
  const host = o.host ?? '127.0.0.1';
  const remembered = o.port || o.publicOrigin ? undefined : rememberedPort(identity, host);
  const serve = (port: number | undefined) =>
    servePlatform(identity, { receiver, host, port, publicOrigin: o.publicOrigin });
  if (remembered === undefined) return serve(o.port);
  try {
    return await serve(remembered);
  } catch (err) {
    log(
      `usp-server connect: port ${remembered} (where this platform's profile was served before) is taken (${(err as Error).message}); serving on another, so businesses that bound the key to ${identity.profileUrl} will refuse it (give --port ${remembered} once it is free)`,
    );
    return serve(0);
  }
}

export interface RunningConnect {
  platform: PlatformServer;
  businesses: BusinessClient[];
  close(): Promise<void>;
}

export async function startConnect(o: ConnectOptions): Promise<RunningConnect> {
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const identity = loadIdentity(o.identityFile);
  // The businesses the person named are reached as given; any other (one a registry named) only under
  // the outbound rules for URLs somebody else chose, its profile re-reads (a webhook's new key) included.
  const named = new Set(o.businesses.map((u) => new URL(u).origin));
  const pinned = pinnedFetch({ allowLoopback: o.allowLoopbackProfiles === true });
  const routed: typeof globalThis.fetch = (input, init) =>
    named.has(new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).origin)
      ? fetch(input, init)
      : pinned(input, init);
  const profiles = new ProfileCache({ fetch: routed });
  const events: Array<WebhookEvent & { business: string; via: 'webhook' | 'poll' }> = [];
  let server: Server | null = null;
  const announce = async (event: WebhookEvent, named: string, via: 'webhook' | 'poll') => {
    events.unshift({ ...event, business: named, via });
    events.length = Math.min(events.length, MAX_EVENTS);
    await server
      ?.notification({ method: 'notifications/resources/updated', params: { uri: EVENTS_URI } } as never)
      .catch(() => undefined);
    await server
      ?.notification({
        method: 'notifications/message',
        params: { level: 'notice', logger: 'usp-connect', data: `${named}: ${event.event} (${EVENTS_URI})` },
      } as never)
      .catch(() => undefined);
  };
  const poller = new Poller({
    intervalMs: (o.pollSeconds ?? 60) * 1000,
    onEvent: (event, biz) => announce(event, biz.name, 'poll'),
    log,
  });
  const receiver = new WebhookReceiver({
    businesses: () => [...o.businesses, ...businesses.map((b) => b.profileUrl)],
    profiles,
    onEvent: async (event, ctx) => {
      const biz = businesses.find((b) => b.profileUrl === ctx.business);
      if (biz) poller.noteEvent(biz, event);
      await announce(event, biz?.name ?? ctx.business, 'webhook');
    },
  });
  const platform = await servePlatformAgain(identity, o, receiver, log);
  saveIdentity(identity, o.identityFile);
  log(`usp-server connect: platform profile ${platform.profileUrl}, webhooks at ${platform.webhookUrl}`);
  const credentials = o.credentials ?? memoryCredentials();
  const businesses: BusinessClient[] = [];
  const polled = new Set<BusinessClient>();
  const tools = new Map<string, Tool>();
  const taken = new Set<string>();
  /** Discover a business and add its tools; `found` when a registry named it (then every request is pinned). */
  const addBusiness = async (url: string, found: boolean): Promise<{ biz: BusinessClient; names: string[] }> => {
    const fetcher = found ? pinned : undefined;
    const biz = await BusinessClient.connect(url, {
      identity,
      profiles,
      credentials,
      ...(fetcher ? { fetch: fetcher } : {}),
    });
    const known = businesses.find((b) => b.profileUrl === biz.profileUrl);
    if (known) return { biz: known, names: [...tools.values()].filter((t) => t.business === known).map((t) => t.name) };
    businesses.push(biz);
    const added = await toolsOf(biz, slugOf(biz.name, taken), 10_000, fetcher);
    for (const t of added) tools.set(t.name, t);
    const polling = o.pollSeconds !== undefined || needsPolling(biz.profileUrl, o.publicOrigin);
    if (polling) polled.add(biz);
    log(
      `usp-server connect: ${biz.name} at ${url} over ${biz.binding}; its events ${polling ? `by polling every ${o.pollSeconds ?? 60} s` : 'by webhook'}`,
    );
    return { biz, names: added.map((t) => t.name) };
  };
  for (const url of o.businesses) {
    try {
      await addBusiness(url, false);
    } catch (err) {
      log(`usp-server connect: ${url} could not be reached (${(err as Error).message}); its tools are not offered`);
    }
  }
  let registry: RegistrySearch | null = null;
  let registryTools: ToolListing[] = [];
  if (o.registry) {
    registry = new RegistrySearch(o.registry, {
      timeoutMs: 10_000,
      useBusiness: async (profileUrl) => {
        const { biz, names } = await addBusiness(profileUrl, true);
        if (polled.size > 0) poller.start();
        await server?.notification({ method: 'notifications/tools/list_changed' } as never).catch(() => undefined);
        return { name: biz.name, tools: names };
      },
    });
    registryTools = await registry.tools();
    log(`usp-server connect: searches at the registry ${registry.origin}`);
  }

  server = new Server(
    { name: 'usp-server-connect', version: '1' },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: false }, logging: {} },
      instructions: `Book at these USP businesses: ${businesses.map((b) => b.name).join('; ') || 'none yet'}. Each tool name starts with the business it acts at.${registry ? ` Search more businesses with the registry__ tools, then registry__use_business to add one.` : ''} Events from the businesses (a waitlist offer, a cancellation) are in the resource ${EVENTS_URI}.`,
    },
  );
  const list = () => [
    ...registryTools,
    ...[...tools.values()].map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  ];
  server.setRequestHandler('tools/list', async () => ({ tools: list() }) as never);
  server.setRequestHandler('tools/call', async (request) => {
    const params = request.params as { name: string; arguments?: Record<string, unknown> };
    if (registry?.handles(params.name)) {
      const { _meta, ...args } = params.arguments ?? {};
      return (await registry.call(params.name, args)) as never;
    }
    const tool = tools.get(params.name);
    if (!tool)
      return {
        content: [{ type: 'text', text: `No tool named ${params.name}; call tools/list.` }],
        isError: true,
      } as never;
    const { _meta, ...args } = params.arguments ?? {};
    const a = await tool.business.call(tool.op, args);
    if (a.ok && polled.has(tool.business)) poller.note(tool.business, a.data);
    const text =
      a.error && a.error.kind !== 'outcome'
        ? `${tool.business.name}: ${a.error.code} (${a.error.severity}; next: ${a.error.next}): ${a.error.message}`
        : (a.text ?? JSON.stringify(a.data));
    return {
      content: [{ type: 'text', text }],
      structuredContent: { business: tool.business.name, ...a.data, messages: a.messages },
      ...(a.ok ? {} : { isError: true }),
    } as never;
  });
  server.setRequestHandler(
    'resources/list',
    async () =>
      ({
        resources: [
          {
            uri: EVENTS_URI,
            name: 'usp-events',
            description:
              "Events at the businesses, newest first: verified webhooks (via 'webhook') and changes read by polling (via 'poll').",
            mimeType: 'application/json',
          },
        ],
      }) as never,
  );
  server.setRequestHandler('resources/read', async (request) => {
    const uri = String((request.params as { uri?: unknown }).uri ?? '');
    if (uri !== EVENTS_URI) throw new Error(`no resource ${uri}`);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ events }) }] } as never;
  });
  server.setRequestHandler('resources/subscribe', async () => ({}) as never);
  server.setRequestHandler('resources/unsubscribe', async () => ({}) as never);
  await server.connect(
    new StdioServerTransport((o.stdin ?? process.stdin) as never, (o.stdout ?? process.stdout) as never),
  );
  if (polled.size > 0) poller.start();
  return {
    platform,
    businesses,
    async close() {
      await poller.stop();
      await server?.close();
      for (const b of businesses) await b.close();
      await platform.close();
    },
  };
}
