/**
 * Platform authentication (10.1.6, 9.2.2, 9.2.4 item 8) and webhook signatures (5.4, 9.1.4): the
 * spec's proof vectors as the suite signs them, then each refusal scenario of the vectors replayed
 * against the business with fresh keys and times (a replayed jti, a proof for another audience, alg
 * none, a credential bound to another key, a bound credential without its proof), and the
 * signature on a webhook the business sends to the suite's loopback receiver.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createPopKey, dpopProof, withMcpProof } from '../../client/index.js';
import { argumentsDigest, uspRequiredComponents, verifyRequestSignature } from '../../security/index.js';
import { describeAnswer } from '../../client/index.js';
import { expectThat, fail, skip, type Check, type CheckContext } from '../types.js';
import { bookOrFail, freshSlot, requireCapability, servedUnknownBooking } from './support.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');

function requireAuthenticating(ctx: CheckContext, mechanism = 'platform_key_pop'): void {
  if (ctx.sandbox) skip('a sandbox: privileged operations accept unauthenticated calls');
  if (!(ctx.profile?.authorization?.accepted_mechanisms ?? []).includes(mechanism))
    skip(`the business does not accept ${mechanism}`);
}

/**
 * A privileged REST read that every business answers once the caller is authenticated: for an id it
 * never issued, the 404 problem `booking-not-found` (newer text 9.4.1), or HTTP 200 with a
 * `booking_not_found` message (the pinned text).
 */
const probePath = '/bookings/conformance_unknown_id';

async function probe(ctx: CheckContext, headers: Record<string, string>) {
  return ctx.rest.send(probePath, { headers });
}

const refused = (a: { status: number }) => a.status === 401 || a.status === 403;

/** An otherwise good DPoP proof whose header says alg none and whose signature is empty (vector 010). */
function algNoneProof(ctx: CheckContext, url: string): string {
  const claims = { htm: 'GET', htu: url, iat: Math.floor(Date.now() / 1000), jti: randomUUID() };
  return `${b64({ typ: 'dpop+jwt', alg: 'none', jwk: ctx.platform.key.publicJwk })}.${b64(claims)}.`;
}

/** A booking made with the suite's key, and its sender-constrained credential. */
async function boundCredential(ctx: CheckContext): Promise<{ bookingId: string; credential: string }> {
  const booking = await bookOrFail(ctx, await freshSlot(ctx));
  const got = ctx.facts.get(`credential:${booking.id}`) as string | undefined;
  if (!got) skip('the booking answer carried no booking_scoped_credential');
  return { bookingId: booking.id, credential: got! };
}

export const authChecks: Check[] = [
  {
    id: 'auth.vectors-canonicalization',
    section: 'auth',
    clause: '9.2.2',
    level: 'MUST',
    title: "the suite's usp_p digests equal the spec's canonicalization vectors (what it signs is what the spec signs)",
    async run(ctx) {
      if (!ctx.spec) skip('the official artifacts are absent (--spec)');
      const vectors = ctx.spec!.popVectors.filter((v) => v.vector.canonicalization?.usp_p);
      if (vectors.length === 0) skip('no canonicalization vectors in the artifacts');
      for (const { name, vector } of vectors) {
        const got = argumentsDigest(vector.canonicalization.params);
        if (got !== vector.canonicalization.usp_p)
          fail(`${name}: digest ${got}, the vector says ${vector.canonicalization.usp_p}`);
      }
      return `${vectors.length} vectors`;
    },
  },
  {
    id: 'auth.required',
    section: 'auth',
    clause: '10.1.6',
    level: 'MUST',
    title: 'a privileged call without any credential is refused (401)',
    async run(ctx) {
      if (ctx.sandbox) skip('a sandbox: privileged operations accept unauthenticated calls');
      const a = await ctx.rest.send(probePath, { headers: { Authorization: '' } });
      expectThat(a.status === 401, `no credential: ${describeAnswer(a)}`);
    },
  },
  {
    id: 'auth.pop-accepted',
    section: 'auth',
    clause: '10.1.6',
    level: 'MUST',
    title: 'a fresh DPoP proof from the suite’s key is accepted',
    async run(ctx) {
      requireAuthenticating(ctx);
      const url = ctx.rest.url(probePath);
      const a = await probe(ctx, { DPoP: dpopProof(ctx.platform.key, 'GET', url) });
      expectThat(servedUnknownBooking(a), `a good proof: ${describeAnswer(a)}`);
    },
  },
  {
    id: 'auth.pop-replayed',
    section: 'auth',
    clause: '10.1.6 (vector 008)',
    level: 'MUST',
    title: 'the same proof (same jti) presented twice is refused the second time',
    async run(ctx) {
      requireAuthenticating(ctx);
      const proof = dpopProof(ctx.platform.key, 'GET', ctx.rest.url(probePath));
      const first = await probe(ctx, { DPoP: proof });
      expectThat(servedUnknownBooking(first), `the first use: ${describeAnswer(first)}`);
      const second = await probe(ctx, { DPoP: proof });
      expectThat(refused(second), `the replayed proof: ${describeAnswer(second)}`);
    },
  },
  {
    id: 'auth.pop-audience',
    section: 'auth',
    clause: '10.1.6 (vector 009)',
    level: 'MUST',
    title: 'a proof made for another business (htu / aud) is refused',
    async run(ctx) {
      requireAuthenticating(ctx);
      const a = await probe(ctx, {
        DPoP: dpopProof(ctx.platform.key, 'GET', `https://other-business.example${probePath}`),
      });
      expectThat(refused(a), `a proof for another audience: ${describeAnswer(a)}`);
      if (ctx.mcp && ctx.mcp.transport === 'http') {
        const args = { booking_id: 'conformance_unknown_id', _meta: { usp: { profile: ctx.rest.profile } } };
        const r = await ctx.mcp.call(
          'usp_bookings_get',
          withMcpProof(ctx.platform.key, 'usp_bookings_get', args, 'https://other-business.example/.well-known/usp'),
        );
        expectThat(r.error, 'MCP: a proof for another audience answered a result');
      }
    },
  },
  {
    id: 'auth.alg-none',
    section: 'auth',
    clause: '10.1.6 (vector 010)',
    level: 'MUST',
    title: 'a proof with alg none is refused',
    async run(ctx) {
      requireAuthenticating(ctx);
      const a = await probe(ctx, { DPoP: algNoneProof(ctx, ctx.rest.url(probePath)) });
      expectThat(refused(a), `alg none: ${describeAnswer(a)}`);
    },
  },
  {
    id: 'auth.key-mismatch',
    section: 'auth',
    clause: '10.1.6 (vector 006)',
    level: 'MUST',
    title: 'a credential bound to one key, presented with a proof by another key, is refused',
    writes: true,
    async run(ctx) {
      requireAuthenticating(ctx);
      const { bookingId, credential } = await boundCredential(ctx);
      const url = ctx.rest.url(`/bookings/${encodeURIComponent(bookingId)}`);
      const other = createPopKey();
      const a = await ctx.rest.send(`/bookings/${encodeURIComponent(bookingId)}`, {
        headers: { Authorization: `DPoP ${credential}`, DPoP: dpopProof(other, 'GET', url, { credential }) },
      });
      expectThat(refused(a), `a proof by another key: ${describeAnswer(a)}`);
    },
  },
  {
    id: 'auth.downgrade',
    section: 'auth',
    clause: '9.2.4 item 8 (vector 007)',
    level: 'MUST',
    title: 'a sender-constrained credential presented without its proof (as a bearer token) is refused',
    writes: true,
    async run(ctx) {
      requireAuthenticating(ctx);
      const { bookingId, credential } = await boundCredential(ctx);
      const a = await ctx.rest.send(`/bookings/${encodeURIComponent(bookingId)}`, {
        headers: { Authorization: `Bearer ${credential}` },
      });
      expectThat(refused(a), `the bound credential as a bearer token: ${describeAnswer(a)}`);
      if (ctx.mcp) {
        const r = await ctx.mcp.call('usp_bookings_get', {
          booking_id: bookingId,
          _meta: {
            usp: { profile: ctx.rest.profile, authorization: { mechanism: 'booking_scoped_credential', credential } },
          },
        });
        expectThat(r.error, 'MCP: the bound credential without a proof answered a result');
      }
    },
  },
];

export const webhookChecks: Check[] = [
  {
    id: 'webhooks.signed',
    section: 'webhooks',
    clause: '5.4, 9.1.4',
    level: 'MUST',
    title:
      "a booking webhook reaches the platform's webhook_url signed (RFC 9421, Content-Digest) by a key in the business profile",
    writes: true,
    async run(ctx) {
      requireCapability(ctx, 'dev.usp-protocol.services.bookings');
      const keys: any[] = ctx.profile?.keys ?? ctx.profile?.signing_keys ?? [];
      if (keys.length === 0) skip('the business publishes no keys: it sends no signed webhooks');
      const before = ctx.platform.webhooks.length;
      await bookOrFail(ctx, await freshSlot(ctx));
      const deadline = Date.now() + Math.min(ctx.options.timeoutMs, 8000);
      while (ctx.platform.webhooks.length === before && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const got = ctx.platform.webhooks.slice(before);
      if (got.length === 0)
        skip('no webhook reached the receiver in time (the business may not fetch loopback platform profiles)');
      for (const w of got) {
        try {
          await verifyRequestSignature(
            { method: w.method, url: w.url, headers: w.headers, body: w.body },
            async (kid) => keys.find((k) => k.kid === kid) ?? null,
            {
              now: Date.now(),
              requiredComponents: uspRequiredComponents,
            },
          );
        } catch (err) {
          fail(`webhook ${w.headers['webhook-id'] ?? ''} does not verify: ${(err as Error).message}`);
        }
        const digest = w.headers['content-digest'];
        expectThat(
          digest && digest.includes(createHash('sha256').update(w.body).digest('base64')),
          'the webhook has no Content-Digest matching its body',
        );
      }
      return `${got.length} webhook(s) verified`;
    },
  },
];
