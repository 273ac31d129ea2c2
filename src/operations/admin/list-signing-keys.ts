import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import type { OperationContext } from '../core/context.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';

/** The webhook signing keys the profile publishes: the next one (signing from `signs_from`), the one in use and those in their grace period. */
export function presentSigningKeys(
  ctx: OperationContext,
): Array<{ kid: string; created_at: string; signs_from: string; retired_at: string | null }> {
  return (ctx.env?.admin?.signingKeys() ?? []).map((k) => ({
    kid: k.kid,
    created_at: isoUtc(k.created_ms),
    signs_from: isoUtc(k.activates_ms ?? k.created_ms),
    retired_at: k.retired_ms ? isoUtc(k.retired_ms) : null,
  }));
}

/** The webhook signing keys by id and dates (public keys are in the profile; private keys never leave the keyring). */
export const listSigningKeys = defineOperation({
  name: 'list_signing_keys',
  rest: { method: 'GET', path: '/admin/signing-keys', input: 'none' },
  ...BUSINESS_READ,
  dashboard: 'signing_keys',
  output: { keys: Out.objects },
  summary: 'The webhook signing keys: the one in use and retired ones still published (ids and dates).',
  input: z.object({}),
  async handle(_inp, ctx) {
    requireBusiness(ctx);
    return ok({ keys: presentSigningKeys(ctx) });
  },
});
