/**
 * A real CalDAV server for the calendar tests: Debian's `radicale`, started on loopback with a temp
 * storage folder and plain htpasswd users, one calendar collection made for the test, stopped (and
 * its folder removed) at the end. `.ci/run` installs the package.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RADICALE_BIN = '/usr/bin/radicale';
export const radicaleInstalled = (): boolean => existsSync(RADICALE_BIN);

export interface Radicale {
  /** http://127.0.0.1:PORT */
  origin: string;
  user: string;
  password: string;
  /** The Authorization header of `user`. */
  auth: string;
  /** Make a calendar collection; answers its URL (ending in /). */
  makeCalendar(name: string): Promise<string>;
  put(url: string, ics: string): Promise<number>;
  remove(url: string): Promise<number>;
  /** The calendar objects in a collection: their URL and text. */
  objects(collection: string): Promise<Array<{ href: string; data: string }>>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startRadicale(user = 'staff', password = 'radicale-test-pw'): Promise<Radicale> {
  const dir = mkdtempSync(join(tmpdir(), 'usp-radicale-'));
  const port = await freePort();
  writeFileSync(join(dir, 'users'), `${user}:${password}\n`);
  writeFileSync(
    join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(RADICALE_BIN, ['--config', join(dir, 'config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += String(c)));
  const origin = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const r = await fetch(`${origin}/`, { headers: { authorization: auth } });
      await r.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill();
        throw new Error(`radicale did not start: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const request = async (method: string, url: string, body?: string, headers: Record<string, string> = {}) => {
    const r = await fetch(url, { method, headers: { authorization: auth, ...headers }, body });
    return { status: r.status, text: await r.text() };
  };
  return {
    origin,
    user,
    password,
    auth,
    async makeCalendar(name) {
      const url = `${origin}/${user}/${name}/`;
      const body = `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>${name}</D:displayname></D:prop></D:set></C:mkcalendar>`;
      const r = await request('MKCALENDAR', url, body, { 'content-type': 'application/xml' });
      if (r.status !== 201) throw new Error(`MKCALENDAR answered ${r.status}: ${r.text}`);
      return url;
    },
    async put(url, ics) {
      return (await request('PUT', url, ics, { 'content-type': 'text/calendar' })).status;
    },
    async remove(url) {
      return (await request('DELETE', url)).status;
    },
    async objects(collection) {
      const body = `<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter></C:calendar-query>`;
      const r = await request('REPORT', collection, body, { 'content-type': 'application/xml', depth: '1' });
      const out: Array<{ href: string; data: string }> = [];
      for (const m of r.text.matchAll(/<(?:\w+:)?response>([\s\S]*?)<\/(?:\w+:)?response>/g)) {
        const href = /<(?:\w+:)?href>([^<]*)</.exec(m[1])?.[1];
        const data = /<(?:\w+:)?calendar-data[^>]*>([\s\S]*?)<\/(?:\w+:)?calendar-data>/.exec(m[1])?.[1];
        if (href && data)
          out.push({
            href,
            data: data.replace(/&#13;/g, '\r').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'),
          });
      }
      return out;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
