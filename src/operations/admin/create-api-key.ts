import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { ISSUED_KEY_PREFIX, hashApiKey } from '../../security/index.js';
import type { PlatformKeyRow } from '../../store/index.js';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { Out } from '../schemas.js';

export function presentKey(k: PlatformKeyRow): Record<string, unknown> {
  return {
    id: k.id,
    label: k.label,
    created_at: isoUtc(k.created_ms),
    revoked_at: k.revoked_ms === null ? null : isoUtc(k.revoked_ms),
  };
}

/**
 * A platform API key issued at run time. Its value is in this answer only: the store keeps its
 * SHA-256, so a lost key is revoked and replaced, never shown again.
 */
export const createApiKey = defineOperation({
  name: 'create_api_key',
  rest: { method: 'POST', path: '/admin/api-keys', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  creates: true,
  dashboard: 'api_key_create',
  output: { api_key: Out.object, secret: Out.string },
  summary: 'Issue a platform API key; the secret is shown once and stored hashed.',
  input: z.object({
    label: z.string().trim().min(1, 'a label is required').max(200).describe('Whose key this is (the platform).'),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const secret = `${ISSUED_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    const row: PlatformKeyRow = {
      id: ctx.ids.next('key'),
      sha256: hashApiKey(secret),
      label: inp.label,
      created_ms: ctx.now,
      revoked_ms: null,
    };
    await ctx.tx.admin.addPlatformKey(row);
    return ok({ api_key: presentKey(row), secret });
  },
});
