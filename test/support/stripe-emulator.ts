/**
 * A small emulator of the Stripe API endpoints the adapter uses, written by us for tests: Checkout
 * Sessions (create, retrieve, expire) and refunds, with form-encoded bodies as Stripe takes them, Stripe's
 * error shape (`{ error: { type, code, message, param } }`), the secret key checked, and
 * Idempotency-Key honoured (the same key and body answer the first response again; another body
 * with the same key is an `idempotency_error`). Behind it a hosted "checkout" page a browser can pay
 * on, and helpers that pay, expire, refund and dispute as Stripe would, each returning the event
 * Stripe would send, signed with the SDK's own `generateTestHeaderString`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type Obj = Record<string, any>;

/** Stripe's form encoding (`a[b][0][c]=v`) back into nested objects and arrays. */
export function parseStripeForm(body: string): Obj {
  const out: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: any = out;
    path.forEach((p, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(path[i + 1]);
      if (last) node[p] = value;
      else node = node[p] ??= nextIsIndex ? [] : {};
    });
  }
  return out;
}

export interface EmulatedStripe {
  url: string;
  secretKey: string;
  webhookSecret: string;
  sessions: Map<string, Obj>;
  refunds: Obj[];
  /** The checkout.session.expired events of sessions expired through the API, to deliver when a test wants. */
  expiredEvents: Obj[];
  /** Requests by path, for assertions ("a retried create makes no second session"). */
  requests: Array<{ method: string; path: string; idempotencyKey?: string; body: Obj; account?: string }>;
  /** Answer the next N calls to a path with HTTP 500 (a flaky Stripe). */
  failNext(path: string, times?: number): void;
  /** Pay an open session (amount as charged, default its total); returns the checkout.session.completed event. Throws on a session not open. */
  pay(sessionId: string, opts?: { amount?: number; currency?: string }): Obj;
  expire(sessionId: string): Obj;
  /** Refund on a payment intent as the dashboard would; returns charge.refunded. */
  refundDirectly(paymentIntent: string, amount: number): Obj;
  dispute(paymentIntent: string, opts?: { reason?: string; amount?: number }): Obj;
  closeDispute(dispute: Obj, status: 'won' | 'lost'): Obj;
  /** The Stripe-Signature header for a payload (the SDK's own test signer), at `timestampS` (default the clock's). */
  sign(payload: string, opts?: { timestampS?: number; secret?: string }): string;
  /** POST an event to the configured webhook URL, signed; resolves with the HTTP status. */
  deliver(event: Obj): Promise<number>;
  webhookUrl?: string;
  close(): Promise<void>;
}

export async function startStripeEmulator(o: {
  now: () => number;
  secretKey?: string;
  webhookSecret?: string;
}): Promise<EmulatedStripe> {
  const secretKey = o.secretKey ?? 'sk_test_emulated_0123456789';
  const webhookSecret = o.webhookSecret ?? 'whsec_emulated_0123456789';
  const sdk = new Stripe(secretKey);
  const sessions = new Map<string, Obj>();
  const intents = new Map<string, Obj>();
  const refunds: Obj[] = [];
  const expiredEvents: Obj[] = [];
  const requests: EmulatedStripe['requests'] = [];
  const idem = new Map<string, { body: string; status: number; response: Obj }>();
  const failures = new Map<string, number>();
  let n = 0;
  const id = (prefix: string) => `${prefix}_test_${(++n).toString().padStart(6, '0')}`;
  const nowS = () => Math.floor(o.now() / 1000);
  // Stripe Connect: an object made for a connected account (its requests' Stripe-Account header) is that
  // account's alone, and its events name the account.
  const event = (type: string, object: Obj, account?: string): Obj => ({
    id: id('evt'),
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: nowS(),
    livemode: false,
    ...(account ? { account } : {}),
    type,
    data: { object: structuredClone(object) },
  });
  const error = (status: number, type: string, message: string, extra: Obj = {}) => ({
    status,
    body: { error: { type, message, ...extra } },
  });
  let base = '';

  const routes = (
    method: string,
    path: string,
    body: Obj,
    account: string | undefined,
  ): { status: number; body: Obj } => {
    const own = (x: Obj | undefined) => (x && x._account === account ? x : undefined);
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (body.mode !== 'payment')
        return error(400, 'invalid_request_error', 'mode must be payment here', { param: 'mode' });
      const item = body.line_items?.[0];
      const amount = Number(item?.price_data?.unit_amount);
      const currency = item?.price_data?.currency;
      if (!Number.isInteger(amount) || amount < 1 || !currency)
        return error(400, 'invalid_request_error', 'line_items[0][price_data] is incomplete', { param: 'line_items' });
      const expires = Number(body.expires_at ?? nowS() + 86_400);
      if (expires < nowS() + 1800 || expires > nowS() + 86_400) {
        return error(
          400,
          'invalid_request_error',
          'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.',
          { param: 'expires_at' },
        );
      }
      const sid = id('cs');
      const s = {
        id: sid,
        object: 'checkout.session',
        mode: 'payment',
        status: 'open',
        payment_status: 'unpaid',
        amount_total: amount * Number(item.quantity ?? 1),
        currency,
        metadata: body.metadata ?? {},
        client_reference_id: body.client_reference_id ?? null,
        expires_at: expires,
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        payment_intent: null,
        url: `${base}/pay/${sid}`,
        _intent_metadata: body.payment_intent_data?.metadata ?? {},
        _account: account,
      };
      sessions.set(sid, s);
      return { status: 200, body: s };
    }
    const x = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (method === 'POST' && x) {
      // As Stripe documents it: only an open session can be expired; another is an error.
      const s = own(sessions.get(x[1]));
      if (!s)
        return error(404, 'invalid_request_error', `No such checkout.session: '${x[1]}'`, { code: 'resource_missing' });
      if (s.status !== 'open')
        return error(
          400,
          'invalid_request_error',
          `Only Checkout Sessions with a status in ["open"] can be expired; this one is ${s.status}.`,
        );
      s.status = 'expired';
      expiredEvents.push(event('checkout.session.expired', visibleOf(s), account));
      return { status: 200, body: s };
    }
    const m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const s = own(sessions.get(m[1]));
      return s
        ? { status: 200, body: s }
        : error(404, 'invalid_request_error', `No such checkout.session: '${m[1]}'`, { code: 'resource_missing' });
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const pi = own(intents.get(body.payment_intent));
      if (!pi)
        return error(400, 'invalid_request_error', `No such payment_intent: '${body.payment_intent}'`, {
          code: 'resource_missing',
          param: 'payment_intent',
        });
      const amount = body.amount === undefined ? pi.amount - pi.refunded : Number(body.amount);
      if (amount > pi.amount - pi.refunded)
        return error(400, 'invalid_request_error', 'Refund amount is greater than unrefunded amount on charge', {
          code: 'amount_too_large',
          param: 'amount',
        });
      pi.refunded += amount;
      const r = {
        id: id('re'),
        object: 'refund',
        amount,
        currency: pi.currency,
        payment_intent: pi.id,
        charge: pi.charge,
        status: 'succeeded',
        metadata: body.metadata ?? {},
      };
      refunds.push(r);
      return { status: 200, body: r };
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  };

  const api = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, body: Obj) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req') });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    const body = parseStripeForm(raw);
    const account = req.headers['stripe-account'] as string | undefined;
    // Idempotency keys are per account, as Stripe keeps them.
    const key = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method: req.method!, path, idempotencyKey: key, body, ...(account ? { account } : {}) });
    if (key && req.method === 'POST') {
      const prior = idem.get(`${account ?? ''} ${key}`);
      if (prior) {
        if (prior.body !== raw)
          return send(400, {
            error: {
              type: 'idempotency_error',
              message:
                'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            },
          });
        res.setHeader('Idempotent-Replayed', 'true');
        return send(prior.status, prior.response);
      }
    }
    const fail = failures.get(path) ?? 0;
    // As Stripe does: a 5xx once execution began is saved under the idempotency key and replayed.
    const out =
      fail > 0 ? error(500, 'api_error', 'An unknown error occurred.') : routes(req.method!, path, body, account);
    if (fail > 0) failures.set(path, fail - 1);
    const visible = Object.fromEntries(Object.entries(out.body).filter(([k]) => !k.startsWith('_')));
    if (key && req.method === 'POST')
      idem.set(`${account ?? ''} ${key}`, { body: raw, status: out.status, response: visible });
    send(out.status, visible);
  };

  const emu: EmulatedStripe = {
    url: '',
    secretKey,
    webhookSecret,
    sessions,
    refunds,
    expiredEvents,
    requests,
    failNext(path, times = 1) {
      failures.set(path, times);
    },
    pay(sessionId, opts = {}) {
      const s = sessions.get(sessionId)!;
      // Stripe takes payment only on an open session (an expired one shows the buyer that it expired).
      if (s.status !== 'open') throw new Error(`checkout session ${sessionId} is ${s.status}: it cannot be paid`);
      const amount = opts.amount ?? s.amount_total;
      const pi = {
        id: id('pi'),
        charge: id('ch'),
        amount,
        currency: opts.currency ?? s.currency,
        refunded: 0,
        metadata: s._intent_metadata,
        _account: s._account,
      };
      intents.set(pi.id, pi);
      Object.assign(s, {
        status: 'complete',
        payment_status: 'paid',
        payment_intent: pi.id,
        amount_total: amount,
        currency: pi.currency,
      });
      return event('checkout.session.completed', visibleOf(s), s._account);
    },
    expire(sessionId) {
      const s = sessions.get(sessionId)!;
      s.status = 'expired';
      return event('checkout.session.expired', visibleOf(s));
    },
    refundDirectly(paymentIntent, amount) {
      const pi = intents.get(paymentIntent)!;
      pi.refunded += amount;
      return chargeRefunded(pi);
    },
    dispute(paymentIntent, opts = {}) {
      const pi = intents.get(paymentIntent)!;
      const d = {
        id: id('dp'),
        object: 'dispute',
        amount: opts.amount ?? pi.amount,
        currency: pi.currency,
        charge: pi.charge,
        payment_intent: pi.id,
        reason: opts.reason ?? 'fraudulent',
        status: 'needs_response',
      };
      return event('charge.dispute.created', d);
    },
    closeDispute(created, status) {
      return event('charge.dispute.closed', { ...created.data.object, status });
    },
    sign(payload, opts = {}) {
      return sdk.webhooks.generateTestHeaderString({
        payload,
        secret: opts.secret ?? webhookSecret,
        timestamp: opts.timestampS ?? nowS(),
      });
    },
    async deliver(ev) {
      const payload = JSON.stringify(ev);
      const res = await fetch(emu.webhookUrl!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': emu.sign(payload) },
        body: payload,
      });
      await res.text();
      return res.status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const chargeRefunded = (pi: Obj) => {
    const ev = event('charge.refunded', {
      id: pi.charge,
      object: 'charge',
      amount: pi.amount,
      amount_refunded: pi.refunded,
      currency: pi.currency,
      payment_intent: pi.id,
      refunded: pi.refunded >= pi.amount,
    });
    return ev;
  };
  const visibleOf = (s: Obj) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('_')));

  // The hosted page: GET shows a Pay button, POST pays, sends the signed event and goes to success_url.
  const hosted = async (req: IncomingMessage, res: ServerResponse) => {
    const sid = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice('/pay/'.length));
    const s = sessions.get(sid);
    if (!s) {
      res.writeHead(404).end('no such session');
      return;
    }
    if (req.method === 'POST') {
      if (s.status !== 'open') {
        res
          .writeHead(410, { 'Content-Type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><title>Expired</title><p>This checkout session is ${s.status}.</p>`);
        return;
      }
      const ev = emu.pay(sid);
      if (emu.webhookUrl) await emu.deliver(ev);
      res.writeHead(303, { Location: s.success_url }).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Emulated Checkout</title><h1>Pay ${s.amount_total} ${s.currency}</h1><form method="post"><button>Pay</button></form><a href="${s.cancel_url}">Back</a>`,
    );
  };

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const p = (req.url ?? '').startsWith('/pay/') ? hosted(req, res) : api(req, res, raw);
      p.catch((err) => res.writeHead(500).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emu.url = base;
  return emu;
}
