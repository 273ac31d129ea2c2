/**
 * Update a registration (spec 6.5): only whoever proves control of the registered profile. The
 * profile and catalog are fetched and checked again on every update (the spec asks for it when
 * profile_url or deployment_mode change; doing it always keeps the index honest). A new profile_url
 * must stay on the same origin: moving elsewhere is a new registration.
 */
import { z } from 'zod';
import { defineRegistryOperation, ok } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { id, Out } from '../schemas.js';
import { registryEnv } from './env-of.js';
import { loadRegistration } from './get-registration.js';
import { presentEntry, registrationRow, serviceRows, type FetchedBusiness } from './indexing.js';
import { REGISTRATION_RATE, validateRegistration } from './register-business.js';
import { registrationFields } from './schemas.js';

const originOf = (u: string): string | null => {
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
};

export const updateRegistration = defineRegistryOperation({
  name: 'update_registration',
  tool: 'usp_registry_update',
  rest: { method: 'PUT', path: '/registry/businesses/{id}', input: 'body' },
  access: 'privileged_platform',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: true,
  conditional: false,
  writes: true,
  output: { registration: Out.object },
  rate: REGISTRATION_RATE,
  summary: 'Update a registration; the profile and catalog are checked again.',
  input: z.object({ id: id('The registration id (reg_...).'), ...registrationFields }),
  async prepare(inp, ctx) {
    const current = await ctx.read((tx) => loadRegistration(tx, inp.id));
    if (inp.profile_url !== current.profile_url && originOf(inp.profile_url) !== originOf(current.profile_url)) {
      throw invalidRequest(
        'profile_url may only move within the same origin; register the new address as a new business and delete this one.',
        [{ field: 'profile_url', message: 'different origin' }],
        'profile_origin_changed',
      );
    }
    return validateRegistration(inp, ctx, current.profile_url);
  },
  async handle(inp, ctx) {
    const fetched = ctx.prepared as FetchedBusiness;
    const current = await loadRegistration(ctx.tx, inp.id);
    const { id: regId, ...fields } = inp;
    const clash = await ctx.tx.registry.byProfileUrl(fields.profile_url);
    if (clash && clash.id !== regId) {
      throw invalidRequest(
        'Another registration already lists that profile_url.',
        [{ field: 'profile_url', message: 'already registered' }],
        'profile_already_registered',
      );
    }
    const row = registrationRow(regId, fields, {
      owner: current.owner,
      createdMs: current.created_ms,
      nowMs: ctx.now,
      nextIndexMs: ctx.now + registryEnv(ctx.env).reindexIntervalMs,
      indexed: true,
    });
    await ctx.tx.registry.put(row);
    await ctx.tx.registry.replaceServices(regId, serviceRows(row, fetched.services, ctx.now));
    registryEnv(ctx.env).indexed?.(regId, fetched);
    return ok({ registration: presentEntry(row) });
  },
});
