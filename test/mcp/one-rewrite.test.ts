/**
 * The MCP door rewrites the SDK's HTTP answer to a POST once (`finishPost`): the USP code the wire
 * codec changed is restored, every error gets its `data.code`, a token refusal sets the status and
 * challenge, and the rate fields the call's answer noted go on the headers, all in one pass. Every
 * JSON-RPC number the door sends is read from the tables of src/bindings/mcp/errors.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { JSON_RPC, MCP_ERROR_CODES } from '../../src/bindings/mcp/errors.js';
import { finishPost } from '../../src/bindings/mcp/wire-fix.js';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe("one rewrite of a POST's answer", () => {
  test('a batch with a codec-rewritten revision_mismatch, an SDK error and a token refusal: codes, status, challenge and rate fields at once', async () => {
    const sdk = json([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: JSON_RPC.invalid_params,
          message: 'revision_mismatch: the booking changed.',
          data: { code: 'revision_mismatch' },
        },
      },
      { jsonrpc: '2.0', id: 2, error: { code: JSON_RPC.method_not_found, message: 'Method not found' } },
      {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32006,
          message: 'authentication_required: expired',
          data: { code: 'invalid_token', resource_metadata: 'https://b.example/.well-known/oauth-protected-resource' },
        },
      },
    ]);
    const res = await finishPost(sdk, {
      quota: { bucket: 'public', limit: 10, remaining: 0, reset: 6 },
      retryAfter: 6,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="https://b.example/.well-known/oauth-protected-resource", error="invalid_token"',
    );
    expect(res.headers.get('ratelimit')).toContain('r=0');
    expect(res.headers.get('retry-after')).toBe('6');
    const body = (await res.json()) as Array<{ error: { code: number; data: { code: string } } }>;
    expect(body.map((m) => [m.error.code, m.error.data.code])).toEqual([
      [MCP_ERROR_CODES.revision_mismatch, 'revision_mismatch'],
      [JSON_RPC.method_not_found, 'method_not_found'],
      [-32006, 'invalid_token'],
    ]);
  });

  test('an answer without an error keeps its bytes and status; a stream keeps its body and gets only the rate fields', async () => {
    const ok = await finishPost(json({ jsonrpc: '2.0', id: 1, result: { content: [] } }), undefined);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}');
    const stream = new Response('event: message\n\n', {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream' },
    });
    const streamed = await finishPost(stream, { quota: { bucket: 'public', limit: 10, remaining: 9, reset: 6 } });
    expect(streamed.headers.get('ratelimit')).toContain('r=9');
    expect(await streamed.text()).toBe('event: message\n\n');
  });
});

describe('every JSON-RPC code the MCP door sends comes from one table', () => {
  test('no file of src/bindings/mcp but errors.ts spells a -32xxx code (comments aside)', () => {
    const dir = join(import.meta.dirname, '..', '..', 'src', 'bindings', 'mcp');
    const spelled = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'errors.ts')
      .flatMap((f) => {
        const code = readFileSync(join(dir, f), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/(^|[^:])\/\/.*$/gm, '$1');
        return [...code.matchAll(/-32\d{3}\b/g)].map((m) => `${f}: ${m[0]}`);
      });
    expect(spelled).toEqual([]);
  });
});
