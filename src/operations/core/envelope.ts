/** The `usp` member on every response (spec 8.3, 8.4): our version and the capabilities in play. */
import type { CapabilityKey, OperationDef } from './define.js';
import { deepFreeze } from '../../domain/index.js';

export const USP_VERSION = '2026-08-20';

export interface UspEnvelope {
  version: string;
  capabilities: Record<string, Array<{ version: string }>>;
}

const cache = new Map<string, UspEnvelope>();

export function uspEnvelope(op: Pick<OperationDef, 'capability' | 'name'>): UspEnvelope {
  let env = cache.get(op.name);
  if (!env) {
    const keys: CapabilityKey[] = [op.capability];
    if (op.capability === 'dev.usp-protocol.services.waitlist') keys.unshift('dev.usp-protocol.services.bookings');
    // Shared by every answer of the operation: frozen, so a door may keep its JSON text.
    env = deepFreeze({
      version: USP_VERSION,
      capabilities: Object.fromEntries(keys.map((k) => [k, [{ version: USP_VERSION }]])),
    });
    cache.set(op.name, env);
  }
  return env;
}
