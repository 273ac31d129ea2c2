import { ProtocolError } from '../core/errors.js';
import type { OperationEnv } from '../core/context.js';
import type { RegistryEnv } from './env.js';

/** The registry's outbound services; a registry operation served without them is a wiring fault. */
export function registryEnv(env: OperationEnv | undefined): RegistryEnv {
  if (!env?.registry)
    throw new ProtocolError('service_unavailable', 'This server does not serve the discovery registry.');
  return env.registry;
}
