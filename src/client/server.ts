/**
 * A small HTTP server for a platform that has no web server of its own: it publishes the platform
 * profile (at `/platform/profile.json`) and receives webhooks (at `/platform/webhooks`), and sets
 * the identity's profile and webhook URLs to where it listens (or to `publicOrigin` when a proxy
 * or tunnel fronts it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlatformIdentity } from './identity.js';
import type { WebhookReceiver } from './webhooks.js';

export interface PlatformServer {
  origin: string;
  profileUrl: string;
  webhookUrl: string;
  /** Profile fetches served so far. */
  readonly profileFetches: number;
  close(): Promise<void>;
}

export const PROFILE_PATH = '/platform/profile.json';
export const WEBHOOK_PATH = '/platform/webhooks';

export async function servePlatform(
  identity: PlatformIdentity,
  o: { receiver?: WebhookReceiver; host?: string; port?: number; publicOrigin?: string; maxAgeSeconds?: number } = {},
): Promise<PlatformServer> {
  let origin = '';
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === WEBHOOK_PATH && req.method === 'POST' && o.receiver) return o.receiver.listener(origin)(req, res);
    if (path === PROFILE_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      fetches++;
      // Short-lived in caches: a rotated key must reach businesses soon.
      res
        .writeHead(200, {
          'Content-Type': 'application/json',
          'Cache-Control': `public, max-age=${o.maxAgeSeconds ?? 60}`,
        })
        .end(JSON.stringify(identity.profileDocument()));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not_found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  origin = o.publicOrigin ?? `http://${o.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  identity.profileUrl = `${origin}${PROFILE_PATH}`;
  if (o.receiver) identity.webhookUrl = `${origin}${WEBHOOK_PATH}`;
  return {
    origin,
    profileUrl: identity.profileUrl,
    webhookUrl: `${origin}${WEBHOOK_PATH}`,
    get profileFetches() {
      return fetches;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
