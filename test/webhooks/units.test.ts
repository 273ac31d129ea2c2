/**
 * Webhook building blocks in isolation (spec §10.1.1, CONFORMANCE §5): the retry schedule
 * (30 s, 60 s, 120 s; give up after 3 retries or 15 minutes), which target URLs are acceptable,
 * the sender's refusal of special-use addresses before any connection, and one signed POST checked
 * by the independent verifier.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  DEFAULT_RETRY,
  httpWebhookSender,
  nextAttempt,
  signedDelivery,
  WEBHOOK_COMPONENTS,
} from '../../src/webhooks/index.js';
import { generateSigningKey } from '../../src/security/http-signatures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { REQUIRED_COMPONENTS, signatureInput, verifyDelivery } from './helpers.js';

const T0 = Date.parse('2026-12-01T17:00:00Z');
const S = 1000;
const MIN = 60 * S;

describe('nextAttempt: exponential backoff on the default schedule', () => {
  it('first retry after 30 s, then 60 s, then 120 s, each counted from the failed attempt', () => {
    const r1 = nextAttempt(DEFAULT_RETRY, 1, T0, T0);
    expect(r1).toBe(T0 + 30 * S);
    const r2 = nextAttempt(DEFAULT_RETRY, 2, T0, r1!);
    expect(r2! - r1!).toBe(60 * S);
    const r3 = nextAttempt(DEFAULT_RETRY, 3, T0, r2!);
    expect(r3! - r2!).toBe(120 * S);
  });

  it('no fourth retry: after the 4th attempt (3 retries) it gives up', () => {
    expect(nextAttempt(DEFAULT_RETRY, 4, T0, T0 + 4 * MIN)).toBeNull();
    expect(nextAttempt(DEFAULT_RETRY, 10, T0, T0 + 4 * MIN)).toBeNull();
  });

  it('never schedules past 15 minutes after the first attempt', () => {
    // A retry landing exactly at 15 min is still allowed; one beyond it is not.
    expect(nextAttempt(DEFAULT_RETRY, 2, T0, T0 + 14 * MIN)).toBe(T0 + 15 * MIN);
    expect(nextAttempt(DEFAULT_RETRY, 2, T0, T0 + 14 * MIN + 1)).toBeNull();
    expect(nextAttempt(DEFAULT_RETRY, 1, T0, T0 + 15 * MIN)).toBeNull();
  });

  it('every number is a setting: a millisecond schedule for tests', () => {
    const p = { firstRetryMs: 50, maxRetries: 2, maxTotalMs: 10_000 };
    expect(nextAttempt(p, 1, T0, T0 + 5)).toBe(T0 + 55);
    expect(nextAttempt(p, 2, T0, T0 + 60)).toBe(T0 + 160);
    expect(nextAttempt(p, 3, T0, T0 + 200)).toBeNull();
    expect(nextAttempt({ ...p, maxRetries: 0 }, 1, T0, T0)).toBeNull();
  });
});

describe('checkWebhookUrl: where a webhook may go', () => {
  it('https anywhere is fine, with or without the loopback flag', () => {
    expect(checkWebhookUrl('https://platform.example/hooks', false)).toBeNull();
    expect(checkWebhookUrl('https://platform.example:8443/a/b?x=1', true)).toBeNull();
  });

  it('plain http only to loopback, and only with the flag', () => {
    for (const u of ['http://127.0.0.1:9000/hooks', 'http://localhost/hooks', 'http://[::1]:8080/h']) {
      expect(checkWebhookUrl(u, true), u).toBeNull();
      expect(checkWebhookUrl(u, false), u).toMatch(/https/);
    }
    expect(checkWebhookUrl('http://platform.example/hooks', true)).toMatch(/https/);
    expect(checkWebhookUrl('http://10.0.0.1/hooks', true)).toMatch(/https/);
  });

  it('credentials in the URL are refused, even over https', () => {
    expect(checkWebhookUrl('https://user:secret@platform.example/hooks', false)).toMatch(/credentials/);
    expect(checkWebhookUrl('https://user@platform.example/hooks', false)).toMatch(/credentials/);
    expect(checkWebhookUrl('http://user:pw@127.0.0.1/hooks', true)).toMatch(/credentials/);
  });

  it('other schemes and non-URLs are refused', () => {
    expect(checkWebhookUrl('ftp://platform.example/hooks', true)).not.toBeNull();
    expect(checkWebhookUrl('/relative/path', true)).not.toBeNull();
    expect(checkWebhookUrl('not a url', true)).not.toBeNull();
  });
});

describe('httpWebhookSender', () => {
  const key = generateSigningKey('unit-test-key');
  const signing = { kid: key.kid, privateKey: key.privateKey };
  let rx: WebhookReceiver;
  beforeEach(async () => {
    rx = await startWebhookReceiver();
  });
  afterEach(async () => {
    await rx.close();
  });

  it('refuses special-use addresses (10.x, 169.254.169.254) without connecting', async () => {
    const sender = httpWebhookSender({ timeoutMs: 1000, allowLoopback: false });
    for (const url of [
      'https://10.1.2.3/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:10.0.0.1]/h',
      'https://192.168.1.1/h',
    ]) {
      const r = await sender.send(url, '{}', signing, T0);
      expect(r.status, url).toBeNull();
      expect(r.error, url).toMatch(/^refused: .*special-use/);
    }
  });

  it('refuses a name that resolves to a special-use address, before any connection', async () => {
    const asked: string[] = [];
    const lookup = async (host: string) => {
      asked.push(host);
      return host === 'metadata.example'
        ? ['169.254.169.254']
        : host === 'mixed.example'
          ? ['93.184.216.34', '10.0.0.7']
          : ['127.0.0.1'];
    };
    const sender = httpWebhookSender({ timeoutMs: 1000, allowLoopback: false, lookup });
    expect((await sender.send('https://metadata.example/hooks', '{}', signing, T0)).error).toMatch(
      /refused: 169\.254\.169\.254/,
    );
    expect((await sender.send('https://mixed.example/hooks', '{}', signing, T0)).error).toMatch(/refused: 10\.0\.0\.7/);
    // A name pointing at our loopback receiver: refused without the flag, and nothing connects.
    const r = await sender.send(`https://platform.example:${rx.port}/hooks`, '{}', signing, T0);
    expect(r.error).toMatch(/refused: 127\.0\.0\.1/);
    expect(asked).toEqual(['metadata.example', 'mixed.example', 'platform.example']);
    expect(rx.connections()).toBe(0);
  });

  it('without the loopback flag even a loopback https URL is refused and never connected to', async () => {
    const sender = httpWebhookSender({ timeoutMs: 1000, allowLoopback: false });
    const r = await sender.send(`https://127.0.0.1:${rx.port}/hooks`, '{}', signing, T0);
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/^refused/);
    const plain = await sender.send(rx.url('/hooks'), '{}', signing, T0);
    expect(plain.error).toMatch(/^refused: must use https/);
    expect(rx.connections()).toBe(0);
  });

  it('with the loopback flag it POSTs the exact bytes, signed, and reports status and latency', async () => {
    const sender = httpWebhookSender({ timeoutMs: 2000, allowLoopback: true });
    const body =
      '{"event":"booking.confirmed","event_id":"evt_1","booking_id":"bkg_1","note":"caf\u00e9 \u2603","timestamp":"2026-12-01T17:00:00Z"}';
    const ok = await sender.send(rx.url('/hooks/a?x=1'), body, signing, T0);
    expect(ok).toMatchObject({ status: 200, error: null });
    expect(ok.latencyMs).toBeGreaterThanOrEqual(0);
    const [req] = rx.requests('/hooks/a');
    expect(req.method).toBe('POST');
    expect(req.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(req.headers['content-type']).toBe('application/json');
    const v = await verifyDelivery(req, [key.publicJwk], T0);
    expect(v).toMatchObject({
      ok: true,
      kid: 'unit-test-key',
      created: Math.floor(T0 / 1000),
      components: REQUIRED_COMPONENTS,
    });

    rx.script('/hooks/b', [503]);
    const failed = await sender.send(rx.url('/hooks/b'), body, signing, T0);
    expect(failed).toMatchObject({ status: 503, error: 'HTTP 503' });
  });

  it('an endpoint that never answers times out with no status', async () => {
    rx.setDefault('/hang', 'hang');
    const sender = httpWebhookSender({ timeoutMs: 150, allowLoopback: true });
    const r = await sender.send(rx.url('/hang'), '{}', signing, T0);
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/timed out/);
    expect(rx.requests('/hang')).toHaveLength(1);
  });
});

describe('signedDelivery', () => {
  it('covers exactly the five components with keyid and created as parameters (never @created)', () => {
    const key = generateSigningKey('kid-x');
    const h = signedDelivery('https://platform.example/hooks?a=1', '{"a":1}', key, T0 + 999);
    expect(WEBHOOK_COMPONENTS).toEqual(REQUIRED_COMPONENTS);
    const input = signatureInput({ 'signature-input': h['signature-input'] });
    expect(input.components).toEqual(REQUIRED_COMPONENTS);
    expect(input.params.get('keyid')).toBe('kid-x');
    expect(input.params.get('created')).toBe(Math.floor(T0 / 1000));
    expect(h['signature-input']).not.toContain('@created');
    expect(h['content-digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
    // The ECDSA signature is raw r||s: 64 bytes.
    const sig = /^sig1=:([^:]+):$/.exec(h.signature)?.[1];
    expect(Buffer.from(sig!, 'base64')).toHaveLength(64);
  });
});
