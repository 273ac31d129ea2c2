/**
 * Issue 40 item 3: every call writes one log line, and each line left stderr in a write of its own
 * (a trip to libuv's thread pool, before the call was answered): the largest cost of the stdio
 * door's own. Lines logged within STDERR_BATCH_MS of the first now leave in one write, in order;
 * pino.flush() (the signal path's exit) sends what is held at once, and a process that exits
 * within the window still writes every line, in order.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { STDERR_BATCH_MS, createLogger } from '../../src/server/logging.js';
import { REPO_ROOT, ensureBuilt } from '../support/build.js';

// sonic-boom (pino's destination) writes through the CommonJS `fs` module object.
const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function spyStderr(): { writes: string[]; restore: () => void } {
  const writes: string[] = [];
  const real = fs.write;
  const spy = vi.spyOn(fs, 'write').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd !== 2) return (real as (...a: unknown[]) => void)(fd, data, ...rest);
    const text = String(data);
    writes.push(text);
    const cb = rest.find((r) => typeof r === 'function') as (err: null, n: number) => void;
    process.nextTick(cb, null, Buffer.byteLength(text));
  }) as never);
  return { writes, restore: () => spy.mockRestore() };
}

afterEach(() => vi.restoreAllMocks());

test('lines logged in separate turns within the window leave stderr in one write, in order', async () => {
  const stderr = spyStderr();
  try {
    const log = createLogger({ format: 'json' });
    for (let i = 1; i <= 3; i++) {
      log.info('call', { n: i });
      await turn();
    }
    expect(stderr.writes).toHaveLength(0);
    await sleep(STDERR_BATCH_MS * 3);
    expect(stderr.writes).toHaveLength(1);
    const lines = stderr.writes[0]
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.n)).toEqual([1, 2, 3]);
    log.info('call', { n: 4 });
    await sleep(STDERR_BATCH_MS * 3);
    expect(stderr.writes).toHaveLength(2);
    expect(JSON.parse(stderr.writes[1]).n).toBe(4);
  } finally {
    stderr.restore();
  }
});

test('pino.flush() sends the held lines without waiting for the window', async () => {
  const stderr = spyStderr();
  try {
    const log = createLogger({ format: 'json' });
    log.warn('held', { n: 1 });
    log.pino.flush();
    await turn();
    expect(stderr.writes.join('')).toContain('"n":1');
  } finally {
    stderr.restore();
  }
});

test('a process that exits within the window still writes its held lines, after the older ones', () => {
  ensureBuilt();
  const script = `
    const { createLogger } = await import(${JSON.stringify(join(REPO_ROOT, 'dist/server/logging.js'))});
    const log = createLogger({ format: 'json' });
    log.info('first');
    setTimeout(() => { log.info('second'); log.info('third'); process.exit(0); }, 5);
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  const lines = run.stderr
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).msg);
  expect(lines).toEqual(['first', 'second', 'third']);
}, 30_000);
