/** The OAuth serve flags reach the server options as given; a malformed value is a usage error naming the flag. */
import { describe, expect, test } from 'vitest';
import { oauthOptions, serveCommand } from '../../src/server/cli/serve.js';

const flags = (o: Record<string, unknown>) => o as Parameters<typeof oauthOptions>[0];

describe('--oauth-unused-client-hours', () => {
  test('sets how long a registered client that never completed a grant is kept; absent keeps the default; 0 or words are refused', () => {
    expect(oauthOptions(flags({ 'oauth-unused-client-hours': '6' }))).toEqual({
      oauth: { registration: { unusedClientTtlMs: 6 * 3600_000 } },
    });
    expect(oauthOptions(flags({}))).toEqual({});
    expect(() => oauthOptions(flags({ 'oauth-unused-client-hours': '0' }))).toThrow(/--oauth-unused-client-hours/);
    expect(() => oauthOptions(flags({ 'oauth-unused-client-hours': 'a day' }))).toThrow(/--oauth-unused-client-hours/);
    expect(serveCommand.help).toContain('--oauth-unused-client-hours');
  });
});
