import { createSigningIdentity, signedHeaders } from '../dist/client/platform-auth.js';
import { uspRequiredComponents, verifyRequestSignature } from '../dist/security/http-signatures.js';
const ident = createSigningIdentity('k1');
const url = 'http://127.0.0.1:8787/bookings';
const bytes = new TextEncoder().encode(JSON.stringify({a:1,b:'x'.repeat(300)}));
const signed = signedHeaders(ident, 'POST', url, { 'Content-Type': 'application/json', 'USP-Agent': 'profile="https://p.example/x.json"', 'Idempotency-Key': 'abc' }, bytes, 1_790_000_000);
const headers = { host: '127.0.0.1:8787', connection: 'keep-alive', accept: 'application/json', 'user-agent': 'bench', 'content-length': String(bytes.length) };
for (const [k, v] of Object.entries(signed)) headers[k.toLowerCase()] = v;
const opts = { now: 1_790_000_000_000, requiredComponents: (p) => uspRequiredComponents(p) };
const t0 = Date.now(); let n=0;
while (Date.now() - t0 < 4000) { await verifyRequestSignature({ method: 'POST', url, headers, body: bytes }, async () => ident.publicJwk, opts); n++; }
console.log('µs', 4000e3/n);
