import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { Out } from '../schemas.js';
import { presentSigningKeys } from './list-signing-keys.js';

/**
 * A next webhook signing key, published in the profile at once and signing after the overlap (at
 * least the profile's cache lifetime), so platforms hold it before they meet it; the current key
 * signs until then and stays published for its grace period after, for deliveries on their way.
 * The key is made before the transaction (it is written by the keyring, not by the handler).
 */
export const rotateSigningKey = defineOperation({
  name: 'rotate_signing_key',
  rest: { method: 'POST', path: '/admin/signing-keys/rotate', input: 'none' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  creates: true,
  dashboard: 'signing_key_rotate',
  output: { key: Out.object, keys: Out.objects },
  summary:
    'Rotate the webhook signing key: the next key is published now and signs after the overlap (default 1 h); the old key stays published for 7 days after.',
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
