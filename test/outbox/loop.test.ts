import { describe, expect, test } from 'vitest';
import { BackgroundLoop } from '../../src/outbox/index.js';
import { StoreUnavailable } from '../../src/store/index.js';

function logger() {
  const lines: string[] = [];
  return { lines, log: { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) } };
}
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('the background loop', () => {
  test('a nudge during a pass runs one more pass right after it, never two at once', async () => {
    const { log } = logger();
    let passes = 0;
    let concurrent = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const loop = new BackgroundLoop({
      name: 'test worker',
      log,
      pollMs: 60_000,
      pass: async () => {
        passes++;
        concurrent++;
        most = Math.max(most, concurrent);
        if (passes === 1) await new Promise<void>((r) => (release = r));
        concurrent--;
      },
    });
    loop.start();
    await until(() => passes === 1);
    loop.nudge();
    loop.nudge();
    release();
    await until(() => passes === 2);
    await new Promise((r) => setTimeout(r, 30));
    expect(passes).toBe(2);
    expect(most).toBe(1);
    await loop.stop();
  });

  test('an unavailable database pauses the loop with one line and says when it is back', async () => {
    const { log, lines } = logger();
    let failing = 3;
    const loop = new BackgroundLoop({
      name: 'test worker',
      log,
      pollMs: 5,
      pass: async () => {
        if (failing-- > 0) throw new StoreUnavailable('connection refused');
      },
    });
    loop.start();
    await until(() => lines.some((l) => l.includes('resumed')));
    await loop.stop();
    expect(lines.filter((l) => l.includes('paused'))).toEqual(['warn test worker paused: database unavailable']);
    expect(lines).toContain('info test worker resumed: the database is back');
    expect(loop.isPaused).toBe(false);
  });

  test('a stopped loop ignores nudges', async () => {
    const { log } = logger();
    let passes = 0;
    const loop = new BackgroundLoop({ name: 'w', log, pass: async () => void passes++ });
    loop.nudge();
    await new Promise((r) => setTimeout(r, 30));
    expect(passes).toBe(0);
    expect(loop.isRunning).toBe(false);
  });
});
