/**
 * Profiling findings for docs/BENCHMARKS.md "Where we stand". Kept by hand: they come from CPU
 * profiles (`node bench/run.mjs --cpu-prof`, `node bench/profile-summary.mjs`) and A/B runs of
 * patched copies of dist/ (`USP_BENCH_DIST=./copy`), not from the run that wrote the file.
 * Update them when the code they describe changes.
 */
export const ANALYSIS = [
  '### What the profiles showed, and what was fixed (2026-11-30, 2-core bench machine)',
  '',
  '**Availability answers: zone offsets (fixed).** `formatInstant` built a luxon `DateTime` per instant and luxon asked `Intl` for the offset every time: 33–42% of the server\'s CPU on `POST /availability/query`. It now reads offsets from a per-zone, per-UTC-hour memo (an hour containing a transition is always asked exactly; checked against luxon in eight zones, every 2026 transition included). `POST /availability/query` went from 10.6× to about 2.8× of the floor (330–400 → 1,500–1,700 req/s). What remains: slot generation, `presentSlot`, `JSON.stringify` of an 18 KB body (the floor pays that too) and the HTTP stack; the load generator shares the two cores, so the lighter floor gains most from them.',
  '',
  '**MCP summaries built an `Intl` formatter per call (fixed).** One `Intl.DateTimeFormat` per time printed (127 µs) and one `Intl.NumberFormat` per price (67 µs), each holding native ICU memory: the stdio server reached 554 MB RSS after 3,300 availability calls. One formatter per zone and currency now: 141 MB after 5,000 calls.',
  '',
  '**Booking writes (partly fixed): 191 → about 470 bookings/s on SQLite.** Fixed: withdrawing the scheduled reminder scanned the whole outbox on every booking (now an index on pending `(order_key, event)`); re-validation read the claims of every resource of the service (now only the slot\'s own); the claim table grew with history (the sweeper now forgets claims that ended a day ago or lapsed); the webhook dispatcher ran a pass per commit (now one pass per burst, 5 ms debounce); BEGIN/COMMIT were parsed per transaction (now prepared). **Not reached: 1,500/s.** Each booking is two HTTP requests (hold, create) and two serialized SQLite transactions of several statements, plus zod, ids, a credential and outbox events: about 2 ms of CPU on one core that also runs the load generator. Getting to 1,500/s needs a different shape (group commits of concurrent requests in one SQLite transaction), or PostgreSQL with several server processes, which the multi-process tests exercise. No double booking was ever counted, contended or not.',
  '',
  '**Fixed costs per request (GET /services/{id}, usp_services_get).** Spread thin, no single hot spot: header copying and the `USP-Agent` structured-field parse, zod input parsing, the serialized read transaction, the `availability_hint` spread into the service, routing among ~30 routes and the correlation-id middleware. Over Streamable HTTP the SDK\'s `isLegacyRequest` reads the request body once more before the transport does, and responses go out as SSE streams.',
  '',
  '**RFC 9421 verification (fixed): 3.4× → 1.8× a bare ECDSA verify.** Imported public keys are cached (decoding a P-256 point cost as much as the verify); what remains is parsing `Signature-Input`, `Signature` and `Content-Digest` and building the signature base.',
  '',
  '**PoP verification: 1.3× a bare Ed25519 verify.** The verify itself is ~80%; the rest is two base64url JSON decodes, the compact-form check, the RFC 7638 thumbprint and the claim checks; the JCS argument digest of a 1 KB call adds ~0.1×.',
  '',
  '**Client side (not ours).** The v2 SDK\'s `StreamableHTTPClientTransport` leaks one abort listener per request (`MaxListenersExceededWarning` after 1,500 calls). Both usp-server and the floor are measured through it.',
];
