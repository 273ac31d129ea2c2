/**
 * The platform profile the registry subscribes to businesses' catalog feeds under (spec 3.12.2): the
 * subscriptions capability and the keys its subscriptions are signed with.
 */
import { z } from 'zod';
import { defineRegistryOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { registryEnv } from './env-of.js';
import { PLATFORM_PROFILE_PATH } from './feed-paths.js';

export const getPlatformProfile = defineRegistryOperation({
  name: 'get_registry_platform_profile',
  rest: { method: 'GET', path: PLATFORM_PROFILE_PATH, input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: false,
  conditional: false,
  writes: false,
  summary:
    "The registry's platform profile: the catalog subscriptions capability and the keys its subscriptions are signed with.",
  input: z.object({}),
  async handle(_inp, ctx) {
    const profile = registryEnv(ctx.env).platformProfile?.();
    if (!profile) throw new ProtocolError('not_found', 'This registry does not subscribe to catalog feeds.');
    return ok(profile);
  },
});
