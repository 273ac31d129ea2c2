/**
 * The platform the suite plays: a throwaway identity of the client library (`PlatformIdentity`:
 * its Ed25519 key for `platform_key_pop`, its signing key, its profile document), and a small
 * loopback HTTP server that publishes its platform profiles (spec 8.2.3) and receives the
 * business's webhooks. Several profiles are served, each a variant a check needs: the normal one
 * (the business's own version and capability keys), one declaring a newer protocol version, one
 * an older, one declaring no capabilities, one declaring its base capability without the extension,
 * one declaring the extensions without the capabilities they extend (orphans the business must prune).
 * A business reaches them only if it accepts loopback profiles (a sandbox, or development flags);
 * checks that need them skip otherwise.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformIdentity, type PopKey } from '../client/index.js';

export interface ReceivedWebhook {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  at: number;
}

export interface SuitePlatform {
  /** The library's identity the suite plays (its keys, its profile document). */
  identity: PlatformIdentity;
  /** The identity's current proof key. */
  key: PopKey;
  /** The profile URL the suite presents by default. */
  profile: string;
  /** The URL of a named profile variant. */
  variant(name: ProfileVariant): string;
  /** Where the business is told to POST webhooks. */
  webhookUrl: string;
  /** Webhooks received so far. */
  readonly webhooks: ReceivedWebhook[];
  /** Profile fetches received so far, by variant. */
  fetches(name: ProfileVariant): number;
  close(): Promise<void>;
}

export type ProfileVariant = 'platform' | 'newer' | 'older' | 'no-capabilities' | 'base-only' | 'orphaned';

/** A later protocol version than any business speaks today. */
export const NEWER_VERSION = '2999-12-31';
/** An older protocol version (before the one this suite targets). */
export const OLDER_VERSION = '2026-01-15';

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1 << 20) chunks.push(c);
    });
    req.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/**
 * Start the platform. `business` is the business profile as fetched: its version and capability
 * keys shape the normal profile (a platform declaring what the business offers).
 */
export async function startPlatform(business: Record<string, any> | null): Promise<SuitePlatform> {
  const version: string = business?.usp?.version ?? '2026-08-20';
  const caps: Record<string, any[]> = {};
  for (const [k, entries] of Object.entries<any>(business?.usp?.capabilities ?? {})) {
    caps[k] = (Array.isArray(entries) ? entries : []).map((e) => ({ version: e?.version ?? version }));
  }
  const extensions = Object.entries<any>(business?.usp?.capabilities ?? {}).filter(
    ([, e]) => Array.isArray(e) && e.some((x) => x?.extends),
  );
  const baseOnly = Object.fromEntries(Object.entries(caps).filter(([k]) => !extensions.some(([x]) => x === k)));
  const bases = new Set(Object.values(extensionBases(business)).flat());
  const orphaned = Object.fromEntries(Object.entries(caps).filter(([k]) => !bases.has(k)));
  const webhooks: ReceivedWebhook[] = [];
  const counts = new Map<string, number>();
  let origin = '';
  const identity = new PlatformIdentity({ version, capabilities: caps });
  // Each variant is the identity's own document (its keys, signing keys and webhook_url) with another `usp` declaration.
  const profileOf = (name: ProfileVariant) => {
    const doc = identity.profileDocument();
    switch (name) {
      case 'platform':
        return doc;
      case 'newer':
        return { ...doc, usp: { version: NEWER_VERSION, capabilities: caps } };
      case 'older':
        return { ...doc, usp: { version: OLDER_VERSION, capabilities: caps } };
      case 'no-capabilities':
        return { ...doc, usp: { version, capabilities: {} } };
      case 'base-only':
        return { ...doc, usp: { version, capabilities: baseOnly } };
      case 'orphaned':
        return { ...doc, usp: { version, capabilities: orphaned } };
    }
  };
  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/webhooks') {
      const body = await readBody(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      webhooks.push({ method: req.method ?? 'POST', url: `${origin}${req.url}`, headers, body, at: Date.now() });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      return;
    }
    const m = /^\/profiles\/([a-z-]+)\.json$/.exec(path);
    const name = m?.[1] as ProfileVariant | undefined;
    if (!name || !['platform', 'newer', 'older', 'no-capabilities', 'base-only', 'orphaned'].includes(name)) {
      res.writeHead(404).end();
      return;
    }
    counts.set(name, (counts.get(name) ?? 0) + 1);
    res
      .writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=60' })
      .end(JSON.stringify(profileOf(name)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const variant = (name: ProfileVariant) => `${origin}/profiles/${name}.json`;
  identity.profileUrl = variant('platform');
  identity.webhookUrl = `${origin}/webhooks`;
  return {
    identity,
    key: identity.popKey,
    profile: variant('platform'),
    variant,
    webhookUrl: `${origin}/webhooks`,
    webhooks,
    fetches: (name) => counts.get(name) ?? 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Each extension capability of the business profile with the capabilities it extends (`extends`, string or array). */
export function extensionBases(business: Record<string, any> | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, entries] of Object.entries<any>(business?.usp?.capabilities ?? {})) {
    const bases = (Array.isArray(entries) ? entries : []).flatMap((e) =>
      Array.isArray(e?.extends) ? e.extends : e?.extends ? [e.extends] : [],
    );
    if (bases.length) out[k] = [...new Set(bases.map(String))];
  }
  return out;
}
