/**
 * The README's "Hosting many businesses" is run as written: the commands of its block, in a fresh
 * data folder and working directory (`npx usp-server` is the built `bin/usp-server.js`, `host serve`
 * listens on a free port instead of 8787, which the curl line follows). Both businesses then book
 * over REST at their own host names, the `host` subcommands suspend and resume one while the
 * deployment serves (another process writing the directory), and an unknown name learns nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { REPO_ROOT, runCli, startCliServer, type RunningCli } from '../support/cli.js';
import { hostCall } from '../support/host-fetch.js';

/** The ```sh block under "## Hosting many businesses", one command a line. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('\n## Hosting many businesses\n');
  if (at < 0) throw new Error('README has no "## Hosting many businesses" section');
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!m) throw new Error('the section has no sh block');
  return m[1]!.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
}

/** A command line's words, double quotes grouping (all the README's lines use). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const work = mkdtempSync(join(tmpdir(), 'usp-hosting-readme-'));
const env = { XDG_DATA_HOME: join(work, 'data'), HOME: work };
let served: RunningCli | undefined;
let port = '';
const commands = readmeCommands();
/** A day's date N days from now (the child runs on the real clock), in UTC. */
const dayFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  ensureBuilt();
  expect(commands.length).toBeLessThanOrEqual(5);
  for (const line of commands) {
    const w = words(line);
    if (w[0] === 'npx' && w[1] === 'usp-server' && w[2] === 'host' && w[3] === 'serve') {
      served = await startCliServer([...w.slice(2), '--port', '0'], { cwd: work, env });
      port = new URL(served.url).port;
    } else if (w[0] === 'npx' && w[1] === 'usp-server') {
      const r = await runCli(w.slice(2), { cwd: work, env, timeoutMs: 30_000 });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
  }
}, 120_000);
afterAll(async () => {
  await served?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function book(host: string, serviceId: string): Promise<{ status: number; id?: string }> {
  const agent = { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' };
  for (let n = 2; n < 12; n++) {
    const q = await hostCall(`http://${host}:${port}/availability/query`, {
      method: 'POST',
      headers: agent,
      body: { service_id: serviceId, start_date: dayFromNow(n), end_date: dayFromNow(n), limit: 1 },
    });
    const slot = q.body?.slots?.[0];
    if (!slot) continue;
    const made = await hostCall(`http://${host}:${port}/bookings`, {
      method: 'POST',
      headers: agent,
      body: {
        service_id: serviceId,
        slot_id: slot.id,
        buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      },
    });
    return { status: made.status, id: made.body?.booking?.id };
  }
  return { status: 0 };
}

describe('the README hosts two businesses in one process in five commands', () => {
  test("the README's curl line reads Nord Studio's profile at its own origin", async () => {
    const curl = commands.find((l) => l.startsWith('curl '));
    expect(curl).toBeDefined();
    const out = await new Promise<string>((resolve, reject) =>
      execFile('curl', words(curl!.replace(':8787', `:${port}`)).slice(1), { timeout: 10_000 }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      ),
    );
    const profile = JSON.parse(out);
    expect(profile.usp.business.name).toBe('Nord Studio');
    expect(out).toContain(`http://nord.localhost:${port}/mcp`);
    expect(out).not.toContain('salon.localhost');
  });

  test('each business books at its own host name; an unknown name gets 404 naming none', async () => {
    const salon = await book('salon.localhost', 'svc_haircut');
    const nord = await book('nord.localhost', 'svc_haircut');
    expect(salon.status).toBe(201);
    expect(nord.status).toBe(201);
    // Each booking is its business's alone.
    const crossed = await hostCall(`http://nord.localhost:${port}/bookings/${salon.id}`, {
      headers: { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' },
    });
    expect(crossed.body.booking).toBeUndefined();
    const unknown = await hostCall(`http://elsewhere.localhost:${port}/.well-known/usp`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toMatch(/Nord|Maple|biz_/);
  });

  test('host list, suspend and resume act on the serving deployment', { timeout: 90_000 }, async () => {
    const listed = await runCli(['host', 'list', '--json'], { cwd: work, env });
    expect(JSON.parse(listed.stdout).map((b: { id: string; hosts: string[] }) => [b.id, b.hosts])).toEqual([
      ['biz_maple_pine', ['salon.localhost']],
      ['biz_nord_studio', ['nord.localhost']],
    ]);
    expect(
      (await runCli(['host', 'suspend', 'biz_nord_studio', '--reason', 'Closed for the holidays.'], { cwd: work, env }))
        .code,
    ).toBe(0);
    const suspended = await hostCall(`http://nord.localhost:${port}/.well-known/usp`);
    expect(suspended.status).toBe(200);
    expect(suspended.text).toContain('Closed for the holidays');
    expect((await hostCall(`http://salon.localhost:${port}/.well-known/usp`)).text).not.toContain('holidays');
    expect((await runCli(['host', 'resume', 'biz_nord_studio'], { cwd: work, env })).code).toBe(0);
    expect((await hostCall(`http://nord.localhost:${port}/.well-known/usp`)).text).not.toContain('holidays');
    const unknown = await runCli(['host', 'suspend', 'biz_nobody'], { cwd: work, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('biz_nobody');
  });
});

describe('the host command used wrongly says so', () => {
  test('a missing or bad host name and an unknown subcommand exit 2; a business hosted twice exits 1', {
    timeout: 90_000,
  }, async () => {
    const noName = await runCli(['host', 'add', '--demo'], { cwd: work, env });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--host');
    const badName = await runCli(['host', 'add', '--demo', '--host', 'salon.localhost:8787'], { cwd: work, env });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('is not a host name');
    const unknown = await runCli(['host', 'frobnicate'], { cwd: work, env });
    expect(unknown.code).toBe(2);
    // A typo in a flag of `host serve` shows host's usage (not serve's, though the word is there).
    const typo = await runCli(['host', 'serve', '--max-loded', '3'], { cwd: work, env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean --max-loaded?');
    expect(typo.stderr).toContain('usp-server host add FILE');
    const twice = await runCli(['host', 'add', '--demo', '--host', 'other.localhost'], { cwd: work, env });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already hosts biz_maple_pine');
    // An id that reads as a hosted one's in calendar secret names (biz-maple-pine ~ biz_maple_pine) is refused.
    const twin = join(work, 'twin.json');
    const demo = JSON.parse(readFileSync(join(import.meta.dirname, '../../src/server/demo-business.json'), 'utf8'));
    writeFileSync(twin, JSON.stringify({ ...demo, business: { ...demo.business, id: 'biz-maple-pine' } }));
    const alike = await runCli(['host', 'add', twin, '--host', 'twin.localhost'], { cwd: work, env });
    expect(alike.code, alike.stderr).toBe(1);
    expect(alike.stderr).toContain('reads as biz_maple_pine');
  });
});
