/**
 * Freeze a plain value all the way down: for values shared between answers, which nobody may
 * change, and whose JSON text the doors may therefore make once (src/web/json.ts).
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
