/**
 * The serve flags of the hardening: connection limits, MCP session caps, browser origins and rate
 * limits reach the server options as given, and a malformed value is a usage error naming the flag.
 */
import { describe, expect, test } from 'vitest';
import { main } from '../../src/server/cli.js';
import { httpOptions, serveCommand } from '../../src/server/cli/serve.js';
import { securityOptions } from '../../src/server/cli/common.js';

const flags = (o: Record<string, unknown>) => o as Parameters<typeof httpOptions>[0];

describe('listener and MCP session flags', () => {
  test('--headers-timeout, --request-timeout, --keep-alive-timeout (seconds) and --max-connections become connection limits', () => {
    expect(
      httpOptions(
        flags({ 'headers-timeout': '5', 'request-timeout': '20', 'keep-alive-timeout': '2', 'max-connections': '64' }),
      ).connections,
    ).toEqual({
      headersTimeoutMs: 5000,
      requestTimeoutMs: 20000,
      keepAliveTimeoutMs: 2000,
      maxConnections: 64,
    });
  });

  test('--mcp-max-sessions, --mcp-max-sessions-per-address and --mcp-unused-session-timeout become session limits', () => {
    expect(
      httpOptions(
        flags({ 'mcp-max-sessions': '50', 'mcp-max-sessions-per-address': '5', 'mcp-unused-session-timeout': '30' }),
      ).mcpSessions,
    ).toEqual({
      maxSessions: 50,
      maxSessionsPerAddress: 5,
      unusedSessionTimeoutMs: 30000,
    });
  });

  test('--allow-origin takes exact origins; a URL with a path is refused', () => {
    expect(
      httpOptions(flags({ 'allow-origin': ['http://localhost:6274', 'https://inspector.example'] })).allowedOrigins,
    ).toEqual(['http://localhost:6274', 'https://inspector.example']);
    expect(() => httpOptions(flags({ 'allow-origin': ['http://localhost:6274/app'] }))).toThrow(/--allow-origin/);
  });

  test('a zero or non-numeric limit is a usage error naming the flag', () => {
    expect(() => httpOptions(flags({ 'max-connections': '0' }))).toThrow(/--max-connections/);
    expect(() => httpOptions(flags({ 'mcp-max-sessions': 'many' }))).toThrow(/--mcp-max-sessions/);
  });
});

describe('rate-limit flags', () => {
  test('--rate-limit CLASS=N sets tokens per minute per class; --no-rate-limit turns them off', () => {
    expect(securityOptions(flags({ 'rate-limit': ['public=50', 'holds=0'] })).rateLimits).toEqual({
      public: 50,
      holds: 0,
    });
    expect(securityOptions(flags({ 'no-rate-limit': true })).rateLimits).toBe(false);
    expect(() => securityOptions(flags({ 'rate-limit': ['everything=5'] }))).toThrow(/--rate-limit/);
  });

  test('every new flag is in serve --help and accepted by the parser', async () => {
    for (const f of [
      '--headers-timeout',
      '--request-timeout',
      '--keep-alive-timeout',
      '--max-connections',
      '--mcp-max-sessions',
      '--mcp-max-sessions-per-address',
      '--mcp-unused-session-timeout',
      '--allow-origin',
      '--rate-limit',
    ]) {
      expect(serveCommand.help).toContain(f);
    }
    // A bad value reaches validation (exit 2) rather than "unknown option".
    const err: string[] = [];
    const orig = console.error;
    console.error = (m: string) => err.push(String(m));
    try {
      expect(await main(['serve', '--demo', '--db', ':memory:', '--rate-limit', 'nonsense'])).toBe(2);
    } finally {
      console.error = orig;
    }
    expect(err.join('\n')).toMatch(/--rate-limit takes CLASS=N/);
  });
});
