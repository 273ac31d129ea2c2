/**
 * The deployment directory's wake schedule (deployment-port.ts WakeSchedule), run on both engines by
 * deployment-directory.test.ts: a business added is due at once; `set` records when it is due; a
 * claim takes the longest due first, skips the ones named, moves each it takes to the lease, and of
 * two directories (two processes) claiming at once, each business goes to one.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DeploymentDirectory } from '../../src/store/index.js';
import { TEST_NOW as NOW } from '../support/time.js';

type Opener = () => Promise<DeploymentDirectory>;

export function wakeContract(name: string, deployment: () => { open: Opener; done: () => Promise<void> }): void {
  describe(`deployment directory wake schedule (${name})`, () => {
    let done: () => Promise<void>;
    let a: DeploymentDirectory;
    let b: DeploymentDirectory;
    beforeEach(async () => {
      const d = deployment();
      done = d.done;
      a = await d.open();
      b = await d.open();
      for (const [i, id] of ['biz_a', 'biz_b', 'biz_c'].entries())
        await a.add({ id, hosts: [`${id}.localhost`], origin: 'demo', addedAt: i });
    });
    afterEach(async () => {
      await a.close();
      await b.close();
      await done();
    });

    test('a business added is due at once; set records when it is next due, null when nothing is queued', async () => {
      expect(await a.wake.at('biz_a')).toBeLessThanOrEqual(NOW);
      await a.wake.set(['biz_a', 'biz_b'], NOW + 5_000);
      await a.wake.set(['biz_c'], null);
      expect([await b.wake.at('biz_a'), await b.wake.at('biz_b'), await b.wake.at('biz_c')]).toEqual([
        NOW + 5_000,
        NOW + 5_000,
        null,
      ]);
      expect(await a.wake.at('biz_unknown')).toBeUndefined();
      expect(await a.wake.claimDue(NOW, 10, NOW + 60_000, [])).toEqual([]);
      expect(await a.wake.claimDue(NOW + 5_000, 10, NOW + 60_000, [])).toEqual(
        expect.arrayContaining(['biz_a', 'biz_b']),
      );
    });

    test('a claim takes the longest due first, none of those named, and moves each it takes to its lease', async () => {
      await a.wake.set(['biz_a'], NOW - 1_000);
      await a.wake.set(['biz_b'], NOW - 3_000);
      await a.wake.set(['biz_c'], NOW - 2_000);
      expect(await a.wake.claimDue(NOW, 1, NOW + 60_000, [])).toEqual(['biz_b']);
      expect(await a.wake.claimDue(NOW, 1, NOW + 60_000, ['biz_c'])).toEqual(['biz_a']);
      expect(await b.wake.at('biz_b')).toBe(NOW + 60_000);
      expect(await b.wake.claimDue(NOW, 5, NOW + 60_000, [])).toEqual(['biz_c']);
      expect(await a.wake.claimDue(NOW, 5, NOW + 60_000, [])).toEqual([]);
      // The lease lapsed (the claiming process died): due again.
      expect((await b.wake.claimDue(NOW + 60_000, 5, NOW + 120_000, [])).sort()).toEqual(['biz_a', 'biz_b', 'biz_c']);
    });

    test('two directories claiming at once never both take one business', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `biz_w${String(i).padStart(2, '0')}`);
      for (const id of ids) await a.add({ id, hosts: [`${id}.localhost`], origin: 'demo', addedAt: 10 });
      const rounds = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).wake.claimDue(NOW, 4, NOW + 60_000, [])),
      );
      const taken = rounds.flat();
      expect(new Set(taken).size).toBe(taken.length);
      expect(taken.length).toBe(23);
    });
  });
}
