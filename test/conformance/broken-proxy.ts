/**
 * A proxy in front of a real usp-server that breaks one rule on purpose, so the conformance suite's
 * tests can prove each check fails on the variant made for it. Each variant rewrites requests or
 * answers the way a faulty business would: dropping the envelope, double-booking (turning a lost
 * race into a success), ignoring If-Match, accepting a replayed proof, publishing keys that do not
 * sign its webhooks, answering 500 to bad input, answering with an extension whose base the
 * platform lacks (no pruning), giving CORS with credentials to whatever origin asks; and the newer
 * text's rules broken: a 409 problem for invalid_transition, a data.code on an unknown tool, a minted
 * 405 type without Allow, a paid service offered that no booking can pay for, an unknown id in the
 * path answered as HTTP 200 with a message (and as an MCP result) in place of the 404, an amount as a
 * digit string refused, and a reschedule past the credential's life that issues no new one.
 */
import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Variant =
  | 'drops-envelope'
  | 'double-books'
  | 'ignores-if-match'
  | 'accepts-replayed-proof'
  | 'signs-webhooks-wrongly'
  | 'answers-500'
  | 'skips-pruning'
  | 'reflects-any-origin'
  | 'hides-ratelimit-status'
  | '409-for-invalid-transition'
  | 'unknown-tool-with-code'
  | 'minted-405'
  | 'offers-unpayable-service'
  | 'lookup-says-service-not-found'
  | 'leaks-extension-data'
  | 'not-found-as-outcome'
  | 'integer-money-only'
  | 'keeps-old-credential'
  | 'availability-says-service-not-found';

/** The money members a business that reads only integers refuses as strings. */
const MONEY = new Set(['amount_paid', 'amount', 'refund_amount', 'min', 'max']);

/** The first money member of `v` written as a string, by its path. */
function stringMoney(v: unknown, path = ''): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const at = path ? `${path}.${k}` : k;
    if (MONEY.has(k) && typeof x === 'string') return at;
    const found = stringMoney(x, at);
    if (found) return found;
  }
  return undefined;
}

/** The not-found codes the newer text makes 404 problems of (9.4.3), which the pinned text sent as outcomes. */
const PATH_NOT_FOUND = /^(booking|entry|service)_not_found$/;

export interface BrokenProxy {
  url: string;
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startBrokenProxy(target: string, variant: Variant): Promise<BrokenProxy> {
  const replays = new Map<string, { status: number; headers: Record<string, string>; body: string }>();
  let origin = '';
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as JsonWebKey;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP.has(k)) headers[k] = v;
    const path = req.url ?? '/';
    if (variant === 'ignores-if-match') delete headers['if-match'];
    if (variant === 'answers-500' && req.method === 'POST' && body.length > 0 && !isWellFormed(body)) {
      res.writeHead(500, { 'Content-Type': 'application/problem+json' }).end('{"type":"about:blank","status":500}');
      return;
    }
    if (variant === 'integer-money-only' && req.method === 'POST' && body.length > 0) {
      let member: string | undefined;
      try {
        member = stringMoney(JSON.parse(body.toString('utf8')));
      } catch {
        member = undefined;
      }
      if (member) {
        const problem = {
          type: 'https://usp-protocol.dev/errors/invalid-request',
          title: 'Invalid request',
          status: 400,
          code: 'invalid_request',
          detail: `${member}: expected integer`,
          errors: [{ field: member, message: 'expected integer' }],
        };
        res.writeHead(400, { 'Content-Type': 'application/problem+json' }).end(JSON.stringify(problem));
        return;
      }
    }
    const asking = req.headers.origin;
    if (variant === 'reflects-any-origin' && asking && req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          'Access-Control-Allow-Origin': asking,
          'Access-Control-Allow-Credentials': 'true',
          'Access-Control-Allow-Methods': 'GET, POST',
          'Access-Control-Allow-Headers': '*',
        })
        .end();
      return;
    }
    const proof = headers.dpop;
    if (variant === 'accepts-replayed-proof' && proof && replays.has(proof)) {
      const r = replays.get(proof)!;
      res.writeHead(r.status, r.headers).end(r.body);
      return;
    }
    // The Host the client used is passed on (as a reverse proxy does), so a DPoP proof made for the
    // proxy's URL matches the URL the business sees.
    const upstream = await forward(
      target + path,
      req.method ?? 'GET',
      { ...headers, host: req.headers.host ?? new URL(target).host },
      body,
    );
    let text = upstream.text;
    let status = upstream.status;
    const out = upstream.headers;
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (variant === 'unknown-tool-with-code' && path.startsWith('/mcp')) {
      text = rewriteRpc(text, (m) => {
        if (m?.error?.data?.reason === 'unknown_tool' || /No tool named/.test(m?.error?.message ?? ''))
          m.error.data = { ...(m.error.data ?? {}), code: 'invalid_request' };
      });
      if (json !== undefined) json = JSON.parse(text);
    }
    if (variant === 'not-found-as-outcome' && path.startsWith('/mcp')) {
      text = rewriteRpc(text, (m) => {
        const code = m?.error?.data?.code;
        if (typeof code !== 'string' || !PATH_NOT_FOUND.test(code)) return;
        const message = {
          type: 'error',
          code,
          severity: 'recoverable',
          content: m.error.data.content ?? m.error.message,
        };
        m.result = {
          content: [{ type: 'text', text: m.error.message }],
          structuredContent: { messages: [message] },
          isError: true,
        };
        delete m.error;
      });
      if (json !== undefined) json = JSON.parse(text);
    }
    if (variant === 'not-found-as-outcome' && status === 404 && PATH_NOT_FOUND.test(String(json?.code ?? ''))) {
      status = 200;
      out['content-type'] = 'application/json';
      json = {
        usp: { version: '2026-08-20', capabilities: {} },
        messages: [{ type: 'error', code: json.code, severity: 'recoverable', content: json.detail }],
      };
      text = JSON.stringify(json);
    }
    if (variant === 'minted-405' && status === 405) {
      delete out.allow;
      json = {
        ...(json ?? {}),
        type: 'https://usp-protocol.dev/errors/method-not-allowed',
        code: 'method_not_allowed',
      };
      text = JSON.stringify(json);
    }
    if (json && typeof json === 'object') {
      if (
        variant === '409-for-invalid-transition' &&
        (json.messages ?? []).some((m: any) => m.code === 'invalid_transition')
      ) {
        status = 409;
        out['content-type'] = 'application/problem+json';
        json = {
          type: 'https://usp-protocol.dev/errors/invalid-transition',
          title: 'Not allowed in the current state',
          status: 409,
          code: 'invalid_transition',
        };
      }
      if (variant === 'offers-unpayable-service' && req.method === 'POST' && path === '/bookings') {
        const paying = (json.booking?.actions ?? []).some((a: any) => a.type === 'payment' && a.status === 'pending');
        if (paying)
          json = {
            usp: json.usp,
            messages: [{ type: 'error', code: 'payment_not_configured', content: 'Online payment is not set up.' }],
          };
      }
      if (variant === 'lookup-says-service-not-found' && path === '/services/lookup') {
        for (const m of json.messages ?? []) if (m.code === 'service_unresolved') m.code = 'service_not_found';
      }
      if (variant === 'availability-says-service-not-found' && path === '/availability/query') {
        for (const m of json.messages ?? []) if (m.code === 'service_unresolved') m.code = 'service_not_found';
      }
      if (variant === 'keeps-old-credential' && req.method === 'POST' && /\/reschedule$/.test(path))
        delete json.booking_scoped_credential;
      if (variant === 'leaks-extension-data' && json.service?.capacity && json.service.type === 'group')
        json.service.capacity.waitlist = true;
      if (variant === 'drops-envelope' && path !== '/.well-known/usp') delete json.usp;
      if (variant === 'skips-pruning' && path.startsWith('/waitlist') && json.usp) {
        const v = [{ version: json.usp.version }];
        json.usp.capabilities = { 'dev.usp-protocol.services.bookings': v, 'dev.usp-protocol.services.waitlist': v };
      }
      if (path === '/.well-known/usp') {
        // The profile names the proxy as the business, so every later request comes through it.
        text = JSON.stringify(json).split(target).join(origin);
        json = JSON.parse(text);
        if (variant === 'signs-webhooks-wrongly') {
          const kid = json.keys?.[0]?.kid ?? 'k';
          json.keys = [{ ...otherKey, kid, use: 'sig', alg: 'ES256' }];
          json.signing_keys = json.keys;
        }
      }
      if (
        variant === 'double-books' &&
        req.method === 'POST' &&
        (path === '/availability/holds' || path === '/bookings')
      ) {
        const lost = (json.messages ?? []).some((m: any) => m.code === 'slot_unavailable');
        if (lost) {
          const id = `dbl_${createHash('sha256').update(body).update(String(Math.random())).digest('hex').slice(0, 12)}`;
          status = path === '/bookings' ? 200 : 201;
          const parsed = JSON.parse(body.toString('utf8'));
          json =
            path === '/bookings'
              ? {
                  usp: json.usp,
                  booking: { id, status: 'confirmed', service_id: parsed.service_id, slot: { id: parsed.slot_id } },
                }
              : {
                  usp: json.usp,
                  hold: {
                    id,
                    slot_id: parsed.slot_id,
                    service_id: parsed.service_id,
                    spots: 1,
                    status: 'active',
                    expires_at: new Date(Date.now() + 600_000).toISOString(),
                  },
                };
        }
      }
      text = JSON.stringify(json);
    }
    if (variant === 'hides-ratelimit-status') delete out.ratelimit;
    if (variant === 'reflects-any-origin' && asking)
      Object.assign(out, { 'access-control-allow-origin': asking, 'access-control-allow-credentials': 'true' });
    // A served answer is kept for the replay: a 404 for an unknown id is one (the probe reads an id never issued).
    if (variant === 'accepts-replayed-proof' && proof && (status < 400 || status === 404))
      replays.set(proof, { status, headers: out, body: text });
    res.writeHead(status, out).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Apply `fix` to every JSON-RPC message of an MCP answer (a JSON body or an SSE stream). */
function rewriteRpc(text: string, fix: (m: any) => void): string {
  const one = (raw: string): string => {
    try {
      const v = JSON.parse(raw);
      for (const m of Array.isArray(v) ? v : [v]) fix(m);
      return JSON.stringify(v);
    } catch {
      return raw;
    }
  };
  if (text.trimStart().startsWith('{') || text.trimStart().startsWith('[')) return one(text);
  return text.replace(/^data: ?(.*)$/gm, (_l, data: string) => `data: ${one(data)}`);
}

/** A request body a sound business accepts or refuses cleanly: JSON with no negative limit. */
function isWellFormed(body: Buffer): boolean {
  try {
    const v = JSON.parse(body.toString('utf8'));
    return !(v && typeof v === 'object' && !Array.isArray(v) && v.pagination?.limit < 0) && !Array.isArray(v);
  } catch {
    return false;
  }
}

/**
 * One request to the business with the Host header as given (fetch would replace it), so a proof
 * made for the proxy's URL still matches the URL the business reconstructs.
 */
function forward(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return new Promise((resolve, reject) => {
    const send = method === 'GET' || method === 'HEAD' ? undefined : body;
    const r = request(
      url,
      { method, headers: send ? { ...headers, 'content-length': String(send.length) } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && !HOP.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 502, headers: out, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(send);
  });
}
