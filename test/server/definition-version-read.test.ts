/**
 * Issue 40 item 3: every call that only reads checks the stored definition version first (another
 * process may have edited the business). On SQLite that read is one prepared statement, but the check
 * around it was a chain of promises on every call. The store now answers it at once
 * (`definitionVersionNow`): still read on every call, an edit stored by anyone seen by the next call,
 * and an unchanged version costs no promise chain (the asynchronous read is not asked at all).
 */
import { afterEach, expect, test, vi } from 'vitest';
import { importDefinition, silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import type { Store } from '../../src/store/index.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

/** The SQLite store, which answers the version at once. */
const readsAtOnce = (store: Store) => store as Store & { definitionVersionNow(): number };

const getService = async (s: UspServer) => {
  const res = await s.app.request('/services/svc_haircut');
  expect(res.status).toBe(200);
  return (await res.json()) as { service: { name: string } };
};

test('a read call reads the version once, at once; an edit stored meanwhile is the next call’s', async () => {
  const def = demoBusiness();
  server = await createUspServer({
    business: def,
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
  });
  const store = server.store;
  const now = vi.spyOn(readsAtOnce(store), 'definitionVersionNow');
  const later = vi.spyOn(store, 'definitionVersion');
  for (let i = 0; i < 5; i++) await getService(server);
  expect(now.mock.calls.length).toBe(5);
  expect(later).not.toHaveBeenCalled();

  // Stored as another process would store it: the next call reads the new version and takes it up.
  const renamed = def.services.map((s) => (s.id === 'svc_haircut' ? { ...s, name: 'Renamed Cut' } : s));
  await store.transaction((tx) => importDefinition(tx, { ...def, services: renamed }));
  expect((await getService(server)).service.name).toBe('Renamed Cut');
  // Changed: read at once, then again by the check that takes the stored definition up.
  expect(now.mock.calls.length).toBe(7);
});

test('a version that cannot be read leaves the business as it was, and the call is answered', async () => {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
  });
  const before = server.biz;
  vi.spyOn(readsAtOnce(server.store), 'definitionVersionNow').mockImplementation(() => {
    throw new Error('database is locked');
  });
  vi.spyOn(server.store, 'definitionVersion').mockRejectedValue(new Error('database is locked'));
  await getService(server);
  expect(server.biz).toBe(before);
});
