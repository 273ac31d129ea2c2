/**
 * What a challenge advertises is what the server accepts (RFC 9449 §5.1, spec 8.2.3): the `algs`
 * of the DPoP challenge in `WWW-Authenticate`, the profile's `pop_algorithms` and the proof check
 * come from one list, so ES256 is named only when `--allow-es256` turns it on.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { ADMIN_KEY, BUYER, demoBusiness } from '../support/server.js';

const servers: UspServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function start(allowEs256: boolean): Promise<string> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security: { allowEs256 },
  });
  servers.push(server);
  return server.listen(0, '127.0.0.1');
}

function dpopAlgs(challenge: string): string[] {
  const m = /DPoP realm="usp", algs="([^"]*)"/.exec(challenge);
  if (!m) throw new Error(`no DPoP challenge in ${challenge}`);
  return m[1].split(' ');
}

describe('the DPoP challenge names exactly the proof algorithms the profile publishes and the server accepts', () => {
  test.each([
    { allowEs256: false, expected: ['EdDSA'] },
    { allowEs256: true, expected: ['EdDSA', 'ES256'] },
  ])(
    'allowEs256 $allowEs256: WWW-Authenticate algs, profile pop_algorithms and the 401 body all say $expected',
    async ({ allowEs256, expected }) => {
      const url = await start(allowEs256);
      const profile: any = await (await fetch(`${url}/.well-known/usp`)).json();
      expect(profile.authorization.pop_algorithms).toEqual(expected);
      const res = await fetch(`${url}/bookings`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'USP-Agent': 'profile="https://platform.example/p.json"' },
        body: JSON.stringify({ service_id: 'svc_haircut', slot_id: 'slot_x', buyer: BUYER }),
      });
      expect(res.status).toBe(401);
      expect(dpopAlgs(res.headers.get('www-authenticate') ?? '')).toEqual(expected);
      expect(((await res.json()) as any).pop_algorithms).toEqual(expected);
    },
  );
});
