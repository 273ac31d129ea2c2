/**
 * Benchmark 5: the CPU cost of checking a request's proof, against the bare signature check.
 *
 * - `platform_key_pop` on MCP: `argumentsDigest` (JCS + SHA-256 of realistic booking arguments)
 *   then `verifyPopProof` (parse, header checks, RFC 7638 thumbprint, Ed25519 verify, claims),
 *   against a bare `crypto.verify(null, data, ed25519Key, sig)` of the same JWS signing input.
 *   The pure verifier keeps no jti cache, so one proof is reused with the clock pinned to its iat.
 * - RFC 9421 on REST: `verifyRequestSignature` with a resolved key (Content-Digest check, field
 *   parsing, signature base, key import, ECDSA P-256 verify) against a bare ECDSA P-256 verify
 *   of the same signature base with a ready KeyObject.
 *
 * Each figure is the median over many rounds; a round times one batch of every variant back to
 * back, and ratios are the median of the per-round ratios (robust to load from other processes).
 */
import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { createPopKey, createSigningIdentity, signedHeaders, withMcpProof } from '../dist/client/platform-auth.js';
import { verifyPopProof } from '../dist/security/pop.js';
import { argumentsDigest } from '../dist/security/jcs.js';
import { jwkThumbprint, uspRequiredComponents, verifyRequestSignature } from '../dist/security/http-signatures.js';
import { verifyContentDigest } from '../dist/security/content-digest.js';
import { fmtUs, fmtX, summarize } from './lib.mjs';

const TARGET_POP_RATIO = 1.5;
const AUD = 'https://bench.example/.well-known/usp';
const PROFILE = 'https://platform.example/profiles/agent.json';

/**
 * Interleaved timing: every round runs one batch of each function back to back, so load from
 * other processes hits all of them alike. Returns per function the per-call summary (batch
 * means, ms) and the median over rounds of its ratio to the first function (the floor).
 */
async function compare(fns, ms, batch) {
  const names = Object.keys(fns);
  for (const n of names) for (let i = 0; i < batch; i++) await fns[n]();
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const ratios = Object.fromEntries(names.map((n) => [n, []]));
  const deadline = Date.now() + ms;
  while (samples[names[0]].length < 7 || Date.now() < deadline) {
    const round = {};
    for (const n of names) {
      const fn = fns[n];
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) await fn();
      round[n] = Number(process.hrtime.bigint() - t0) / 1e6 / batch;
      samples[n].push(round[n]);
    }
    for (const n of names) ratios[n].push(round[n] / round[names[0]]);
  }
  const out = {};
  for (const n of names) out[n] = { ...summarize(samples[n]), ratio: summarize(ratios[n]).p50 };
  return out;
}

/** Realistic `usp_bookings_create` arguments with their `_meta.usp` (proof added by withMcpProof). */
function bookingArguments() {
  return {
    service_id: 'svc_haircut',
    slot_id: 'slot_AByNiob78zqLQl',
    hold_id: 'hld_8Qm3ZtK1rV0xYpL7nW2cBe',
    buyer: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      phone_number: '+1 212 555 0100',
      consent: { marketing: false, analytics: true },
    },
    notes: 'First visit. Prefers a quiet chair near the window; allergic to lavender.',
    _meta: {
      usp: {
        profile: PROFILE,
        idempotency_key: '5b7f3a52-3c1e-4c4e-9a8e-2f0d6b1c9e77',
        correlation_id: 'c0ffee00-1234-4abc-8def-000000000001',
      },
    },
  };
}

export async function run({ quick }) {
  const ms = quick ? 50 : 1500;

  // ---- platform_key_pop ----------------------------------------------------------------------
  const key = createPopKey();
  const iat = 1_790_000_000;
  const args = withMcpProof(key, 'usp_bookings_create', bookingArguments(), AUD, { iat, jti: 'bench-jti-0001' });
  const proof = args._meta.usp.authorization.proof;
  const expectation = (digest) => ({
    binding: 'mcp',
    now: iat * 1000,
    method: 'usp_bookings_create',
    audiences: [AUD],
    argsDigest: digest,
  });
  const popFull = () => verifyPopProof(proof, expectation(argumentsDigest(args)));
  if (popFull().jkt !== key.jkt) throw new Error('security: the PoP proof did not verify');
  const [h, p, s] = proof.split('.');
  const edData = Buffer.from(`${h}.${p}`, 'ascii');
  const edSig = Buffer.from(s, 'base64url');
  const edKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
  const edFloor = () => cryptoVerify(null, edData, edKey, edSig);
  if (!edFloor()) throw new Error('security: the bare Ed25519 verify failed');
  const digest = argumentsDigest(args);

  const pop = await compare(
    {
      floor: edFloor,
      full: popFull,
      digestOnly: () => argumentsDigest(args),
      verifyOnly: () => verifyPopProof(proof, expectation(digest)),
      thumbprint: () => jwkThumbprint(key.publicJwk),
    },
    ms,
    100,
  );
  const popRatio = pop.full.ratio;

  // ---- RFC 9421 ------------------------------------------------------------------------------
  const ident = createSigningIdentity('bench-key-1');
  const url = 'http://127.0.0.1:8787/bookings';
  const body = JSON.stringify({ ...bookingArguments(), _meta: undefined });
  const bytes = new TextEncoder().encode(body);
  const created = iat;
  const signed = signedHeaders(
    ident,
    'POST',
    url,
    {
      'Content-Type': 'application/json',
      'USP-Agent': `profile="${PROFILE}"`,
      'Idempotency-Key': '5b7f3a52-3c1e-4c4e-9a8e-2f0d6b1c9e77',
    },
    bytes,
    created,
  );
  // The header record as the REST door hands it over: lower-case names, plus what a client sends anyway.
  const headers = {
    host: '127.0.0.1:8787',
    connection: 'keep-alive',
    accept: 'application/json',
    'user-agent': 'bench',
    'content-length': String(bytes.length),
  };
  for (const [k, v] of Object.entries(signed)) headers[k.toLowerCase()] = v;
  const resolveKey = async () => ident.publicJwk;
  const verifyOpts = { now: created * 1000, requiredComponents: (present) => uspRequiredComponents(present) };
  const sigFull = () => verifyRequestSignature({ method: 'POST', url, headers, body: bytes }, resolveKey, verifyOpts);
  if ((await sigFull()).keyid !== 'bench-key-1') throw new Error('security: the RFC 9421 signature did not verify');

  // The same signature base, rebuilt from Signature-Input, for the bare verify.
  const input = /^sig1=(.*)$/.exec(headers['signature-input'])[1];
  const covered = [...input.slice(1, input.indexOf(')')).matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const u = new URL(url);
  const derived = { '@method': 'POST', '@authority': u.host, '@path': u.pathname, '@query': u.search || '?' };
  const base = [...covered.map((c) => `"${c}": ${derived[c] ?? headers[c]}`), `"@signature-params": ${input}`].join(
    '\n',
  );
  const baseBytes = Buffer.from(base, 'utf8');
  const ecSig = Buffer.from(/^sig1=:([^:]+):$/.exec(headers.signature)[1], 'base64');
  const ecKey = createPublicKey({ key: ident.publicJwk, format: 'jwk' });
  const ecFloor = () => cryptoVerify('sha256', baseBytes, { key: ecKey, dsaEncoding: 'ieee-p1363' }, ecSig);
  if (!ecFloor()) throw new Error('security: the rebuilt signature base does not verify (bench bug)');
  const { kid: _k, use: _u, alg: _a, ...bareJwk } = ident.publicJwk;

  const sig = await compare(
    {
      floor: ecFloor,
      full: sigFull,
      keyImport: () => createPublicKey({ key: bareJwk, format: 'jwk' }),
      digest: () => verifyContentDigest(headers['content-digest'], bytes),
    },
    ms,
    50,
  );
  const sigRatio = sig.full.ratio;

  return {
    id: 'security',
    title: '5. Security cost (per verification, CPU)',
    sections: [
      {
        caption: 'Medians per call',
        header: ['check', 'median', 'ratio to floor'],
        rows: [
          ['bare Ed25519 verify (floor)', fmtUs(pop.floor.p50), fmtX(1)],
          ['platform_key_pop: argumentsDigest + verifyPopProof', fmtUs(pop.full.p50), fmtX(popRatio)],
          ['  of which argumentsDigest (JCS + SHA-256)', fmtUs(pop.digestOnly.p50), fmtX(pop.digestOnly.ratio)],
          ['  of which verifyPopProof', fmtUs(pop.verifyOnly.p50), fmtX(pop.verifyOnly.ratio)],
          ['  (inside it) jwkThumbprint', fmtUs(pop.thumbprint.p50), fmtX(pop.thumbprint.ratio)],
          ['bare ECDSA P-256 verify of the signature base (floor)', fmtUs(sig.floor.p50), fmtX(1)],
          ['RFC 9421 verifyRequestSignature (resolved key)', fmtUs(sig.full.p50), fmtX(sigRatio)],
          ['  (inside it) createPublicKey from the JWK', fmtUs(sig.keyImport.p50), fmtX(sig.keyImport.ratio)],
          ['  (inside it) Content-Digest check', fmtUs(sig.digest.p50), fmtX(sig.digest.ratio)],
        ],
      },
    ],
    notes: [
      `PoP arguments: a realistic usp_bookings_create call (${JSON.stringify(args).length} bytes with its proof). RFC 9421: POST /bookings with a ${bytes.length}-byte body, covering ${covered.join(', ')}.`,
    ],
    targets: [
      {
        name: 'PoP verify vs bare Ed25519',
        target: `< ${TARGET_POP_RATIO}×`,
        value: `${fmtX(popRatio)} (${fmtUs(pop.full.p50)} vs ${fmtUs(pop.floor.p50)})`,
        ok: popRatio < TARGET_POP_RATIO,
      },
      {
        name: 'RFC 9421 verify vs bare ECDSA P-256',
        target: '(reported)',
        value: `${fmtX(sigRatio)} (${fmtUs(sig.full.p50)} vs ${fmtUs(sig.floor.p50)})`,
        ok: null,
      },
    ],
    data: { pop, sig, popRatio, sigRatio },
  };
}
