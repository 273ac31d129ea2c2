import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../define.js';
import { ProtocolError } from '../errors.js';
import { Out } from '../schemas.js';
import { presentSigningKeys } from './list-signing-keys.js';

/**
 * A new webhook signing key, used for every delivery from now on; the old one stays published in
 * the profile for its grace period so platforms verify deliveries already on their way. The key is
 * made before the transaction (it is written by the keyring, not by the handler).
 */
export const rotateSigningKey = defineOperation({
  name: 'rotate_signing_key',
  rest: { method: 'POST', path: '/admin/signing-keys/rotate', input: 'none' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: false,
  writes: true,
  creates: true,
  dashboard: 'signing_key_rotate',
  output: { key: Out.object, keys: Out.objects },
  summary: 'Rotate the webhook signing key; the old key stays published for 7 days.',
  input: z.object({}),
  async prepare(_inp, ctx) {
    if (!ctx.caller.business) return undefined;
    if (!ctx.env?.admin) throw new ProtocolError('service_unavailable', 'This server has no signing keys to rotate.');
    return ctx.env?.admin.rotateSigningKey(ctx.now);
  },
  async handle(_inp, ctx) {
    requireBusiness(ctx);
    const kid = ctx.prepared as string;
    const keys = presentSigningKeys(ctx);
    return ok({ key: keys.find((k) => k.kid === kid) ?? { kid }, keys });
  },
});
