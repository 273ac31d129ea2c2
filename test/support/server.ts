/**
 * Start a real usp-server on loopback for tests: the demo business (or another), in-memory SQLite,
 * a manual clock pinned to a known instant, and a small fetch helper that speaks REST.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BusinessDef, BusinessSettings } from '../../src/domain/business.js';
import { ManualClock } from '../../src/operations/index.js';
import { parseBusinessFile } from '../../src/server/business-file.js';
import { createUspServer, type ServerOptions, type UspServer } from '../../src/server/compose.js';
import { silentLogger, type Logger } from '../../src/operations/index.js';
import type { StoreTimeouts } from '../../src/store/index.js';
import { TEST_NOW } from './time.js';

export const PLATFORM = 'https://platform.example/profiles/agent.json';
export const OTHER_PLATFORM = 'https://other-platform.example/profile.json';
export const ADMIN_KEY = 'test-admin-key-0123456789';

export function demoBusiness(settings: Partial<BusinessSettings> = {}): BusinessDef {
  const raw = JSON.parse(readFileSync(join(import.meta.dirname, '../../src/server/demo-business.json'), 'utf8'));
  const def = parseBusinessFile(raw, 'demo-business.json');
  return { ...def, settings: { ...def.settings, ...settings } };
}

export interface TestServer {
  url: string;
  server: UspServer;
  clock: ManualClock;
  /** REST call; `profile` defaults to PLATFORM (pass null to send no USP-Agent). */
  call(
    method: string,
    path: string,
    body?: unknown,
    opts?: CallOptions,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface CallOptions {
  profile?: string | null;
  idempotencyKey?: string;
  ifMatch?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  rawBody?: string;
}

export async function startTestServer(
  opts: {
    business?: BusinessDef;
    sandbox?: boolean;
    now?: number;
    db?: string;
    log?: Logger;
    dbTimeouts?: StoreTimeouts;
    onDbStatement?: ServerOptions['onDbStatement'];
    availabilityCacheBytes?: number;
    webhooks?: ServerOptions['webhooks'];
    payments?: ServerOptions['payments'];
    mail?: ServerOptions['mail'];
    calendars?: ServerOptions['calendars'];
    security?: ServerOptions['security'];
    suspended?: ServerOptions['suspended'];
  } = {},
): Promise<TestServer> {
  const clock = new ManualClock(opts.now ?? TEST_NOW);
  const server = await createUspServer({
    business: opts.business ?? demoBusiness(),
    db: opts.db ?? ':memory:',
    dbTimeouts: opts.dbTimeouts,
    onDbStatement: opts.onDbStatement,
    sandbox: opts.sandbox ?? true,
    clock,
    log: opts.log ?? silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    availabilityCacheBytes: opts.availabilityCacheBytes,
    webhooks: opts.webhooks,
    payments: opts.payments,
    mail: opts.mail,
    calendars: opts.calendars,
    security: opts.security,
    suspended: opts.suspended,
  });
  const url = await server.listen(0, '127.0.0.1');
  const call: TestServer['call'] = async (method, path, body, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const profile = o.profile === undefined ? PLATFORM : o.profile;
    if (profile !== null) headers['USP-Agent'] = `profile="${profile}"`;
    if (o.idempotencyKey) headers['Idempotency-Key'] = o.idempotencyKey;
    if (o.ifMatch) headers['If-Match'] = o.ifMatch;
    if (o.apiKey) headers.Authorization = `Bearer ${o.apiKey}`;
    let payload: string | undefined = o.rawBody;
    if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return { url, server, clock, call, close: () => server.close() };
}

export const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

/** Local date string N days after TEST_NOW in New York. */
export function day(n: number): string {
  const d = new Date(TEST_NOW + n * 86_400_000);
  return d.toISOString().slice(0, 10);
}
