/** Wait for every promise; then their values, or the first error (so nothing is left running behind a failure). */
export async function settleAll(promises: readonly Promise<unknown>[]): Promise<unknown[]> {
  const out = await Promise.allSettled(promises);
  const bad = out.find((o) => o.status === 'rejected');
  if (bad) throw bad.reason;
  return out.map((o) => (o as PromiseFulfilledResult<unknown>).value);
}
