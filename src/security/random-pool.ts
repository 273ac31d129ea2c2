/**
 * Random bytes from the CSPRNG, drawn in 4 KiB blocks and handed out in slices that never overlap:
 * `randomBytes` per call cost ~10 µs on a loaded machine, and a booking draws six ids and three
 * credential values. A slice is the CSPRNG's output as a call of its own would be; the bytes not yet
 * handed out live in this process's memory, as every issued value does until it is sent.
 */
import { randomBytes } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = POOL_BYTES;

/** `n` fresh random bytes (a view: read it before the next call, or copy it). */
export function pooledRandomBytes(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomBytes(n);
  if (used + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const out = pool.subarray(used, used + n);
  used += n;
  return out;
}
