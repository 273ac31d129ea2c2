/**
 * "Acme Pay", a payment provider that exists only in the tests: its HTTP API (JSON, not Stripe's
 * forms), written by us to prove that a second provider plugs in through `src/payments/adapters.ts`
 * alone. Checkouts (create, read, close) and refunds under `Authorization: Bearer <key>` and an
 * `Acme-Idempotency` key (the same key answers the first response again); a checkout lives between
 * 45 minutes and 6 hours (other limits than Stripe's, so the core must take the adapter's); events
 * are JSON signed in `Acme-Signature: t=<ms>;mac=<hex HMAC-SHA256 of "<t>.<body>">`.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, any>;

export const ACME_MIN_TTL_MS = 45 * 60_000;
export const ACME_MAX_TTL_MS = 6 * 3600_000;

/** Acme's signature over a body at `tMs`. */
export function acmeSignature(body: string, secret: string, tMs: number): string {
  return `t=${tMs};mac=${createHmac('sha256', secret).update(`${tMs}.${body}`).digest('hex')}`;
}

export interface EmulatedAcme {
  url: string;
  apiKey: string;
  webhookSecret: string;
  checkouts: Map<string, Obj>;
  refunds: Obj[];
  requests: Array<{ method: string; path: string; key?: string; body: Obj }>;
  pay(checkoutId: string, opts?: { amount?: number }): Obj;
  /** Acme's own expiry of a checkout: the `checkout.closed` event. */
  expire(checkoutId: string): Obj;
  sign(payload: string, opts?: { tMs?: number; secret?: string }): string;
  deliver(event: Obj): Promise<number>;
  webhookUrl?: string;
  close(): Promise<void>;
}

export async function startAcmeEmulator(o: { now: () => number }): Promise<EmulatedAcme> {
  const apiKey = 'acme_key_emulated';
  const webhookSecret = 'acme_whsec_emulated';
  const checkouts = new Map<string, Obj>();
  const payments = new Map<string, Obj>();
  const refunds: Obj[] = [];
  const requests: EmulatedAcme['requests'] = [];
  const idem = new Map<string, { status: number; body: Obj }>();
  let n = 0;
  const id = (prefix: string) => `${prefix}-${++n}`;
  const event = (kind: string, data: Obj): Obj => ({ id: id('aev'), kind, at: o.now(), data: structuredClone(data) });
  const fail = (status: number, reason: string) => ({ status, body: { reason } });

  const routes = (method: string, path: string, body: Obj): { status: number; body: Obj } => {
    if (method === 'POST' && path === '/checkouts') {
      const ttl = Number(body.expires_at) - o.now();
      if (ttl < ACME_MIN_TTL_MS || ttl > ACME_MAX_TTL_MS)
        return fail(422, 'expires_at must be 45 minutes to 6 hours ahead');
      if (!Number.isInteger(body.amount) || body.amount < 1) return fail(422, 'amount');
      const c = {
        id: id('chk'),
        state: 'open',
        amount: body.amount,
        currency: body.currency,
        reference: body.reference,
        action: body.action,
        return_ok: body.return_ok,
        expires_at: body.expires_at,
      };
      checkouts.set(c.id, { ...c, pay_url: `${base}/hosted/${c.id}` });
      return { status: 201, body: checkouts.get(c.id)! };
    }
    const closeM = /^\/checkouts\/([^/]+)\/close$/.exec(path);
    if (method === 'POST' && closeM) {
      const c = checkouts.get(closeM[1]);
      if (!c) return fail(404, 'no such checkout');
      if (c.state !== 'open') return fail(409, `checkout is ${c.state}`);
      c.state = 'closed';
      return { status: 200, body: c };
    }
    const getM = /^\/checkouts\/([^/]+)$/.exec(path);
    if (method === 'GET' && getM) {
      const c = checkouts.get(getM[1]);
      return c ? { status: 200, body: c } : fail(404, 'no such checkout');
    }
    if (method === 'POST' && path === '/refunds') {
      const p = payments.get(body.payment);
      if (!p) return fail(404, 'no such payment');
      if (body.amount > p.amount - p.refunded) return fail(422, 'more than is left');
      p.refunded += body.amount;
      const r = { id: id('rf'), payment: p.id, amount: body.amount, done: true };
      refunds.push(r);
      return { status: 201, body: r };
    }
    return fail(404, `no route ${method} ${path}`);
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (status: number, body: Obj) =>
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { reason: 'bad key' });
      const body = raw ? JSON.parse(raw) : {};
      const key = req.headers['acme-idempotency'] as string | undefined;
      requests.push({ method: req.method!, path, key, body });
      const prior = key ? idem.get(key) : undefined;
      if (prior) return send(prior.status, prior.body);
      const out = routes(req.method!, path, body);
      if (key && out.status < 500) idem.set(key, out);
      send(out.status, out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const emu: EmulatedAcme = {
    url: base,
    apiKey,
    webhookSecret,
    checkouts,
    refunds,
    requests,
    pay(checkoutId, opts = {}) {
      const c = checkouts.get(checkoutId)!;
      if (c.state !== 'open') throw new Error(`checkout ${checkoutId} is ${c.state}: it cannot be paid`);
      const p = { id: id('pay'), amount: opts.amount ?? c.amount, currency: c.currency, refunded: 0 };
      payments.set(p.id, p);
      Object.assign(c, { state: 'paid', payment: p.id });
      return event('checkout.paid', {
        checkout: c.id,
        reference: c.reference,
        action: c.action,
        payment: p.id,
        amount: p.amount,
        currency: p.currency,
      });
    },
    expire(checkoutId) {
      const c = checkouts.get(checkoutId)!;
      c.state = 'closed';
      return event('checkout.closed', { checkout: c.id, reference: c.reference, action: c.action });
    },
    sign: (payload, opts = {}) => acmeSignature(payload, opts.secret ?? webhookSecret, opts.tMs ?? o.now()),
    async deliver(ev) {
      const payload = JSON.stringify(ev);
      const res = await fetch(emu.webhookUrl!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Acme-Signature': emu.sign(payload) },
        body: payload,
      });
      await res.text();
      return res.status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return emu;
}
