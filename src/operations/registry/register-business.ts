/**
 * Register a business (spec 6.1): the registrant proves control of the profile, the profile is
 * fetched (SSRF-safe) and must be a valid profile of the declared deployment mode, and the catalog
 * is read through the business's own REST door and indexed. Only then is anything stored. A
 * profile already registered is refreshed in place and keeps its id.
 */
import { defineRegistryOperation, ok, type RateRule } from '../core/define.js';
import { Out } from '../schemas.js';
import { outboundUrlProblem } from '../../security/index.js';
import { invalidRequest } from '../core/errors.js';
import type { PrepareContext } from '../core/context.js';
import { registryEnv } from './env-of.js';
import { requireControl } from './control.js';
import {
  checkLocation,
  fetchBusiness,
  presentEntry,
  registrationRow,
  serviceRows,
  type FetchedBusiness,
} from './indexing.js';
import { RegistrationRequest, type RegistrationInput } from './schemas.js';

/**
 * Each registration or update fetches the profile and the catalog: the tightest class per caller,
 * and, whoever the callers are, per host the registration names and for the registry as a whole
 * (spam from many addresses and keys is still bounded).
 */
export const REGISTRATION_RATE: RateRule<{ profile_url: string }> = {
  bucket: 'bookings',
  shared: (input) => [
    { bucket: 'registrations', subject: `host:${hostOf(input.profile_url)}` },
    { bucket: 'registrations_total', subject: 'registry' },
  ],
};

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url.slice(0, 200);
  }
}

/** The checks every write of a registration makes before the transaction: URL, control, profile, catalog, location. */
export async function validateRegistration(
  input: RegistrationInput,
  ctx: PrepareContext,
  controlOf: string,
): Promise<FetchedBusiness> {
  const env = registryEnv(ctx.env);
  const problem = outboundUrlProblem(input.profile_url, env.allowLoopback, { refuseCredentials: true });
  if (problem) {
    const message =
      problem === 'not_absolute'
        ? 'is not an absolute URL'
        : problem === 'credentials'
          ? 'must not carry credentials'
          : 'must use https';
    throw invalidRequest(`profile_url ${message}.`, [{ field: 'profile_url', message }], 'invalid_profile_url');
  }
  requireControl(ctx.caller, controlOf);
  const fetched = await fetchBusiness(env, input.profile_url, input.deployment_mode);
  checkLocation(input, fetched.services);
  return fetched;
}

export const registerBusiness = defineRegistryOperation({
  name: 'register_business',
  tool: 'usp_registry_register',
  rest: { method: 'POST', path: '/registry/businesses', input: 'body' },
  access: 'privileged_platform',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: true,
  conditional: false,
  writes: true,
  creates: true,
  output: { registration: Out.object },
  rate: REGISTRATION_RATE,
  summary: 'Register a business: its profile is fetched and checked, its catalog indexed.',
  input: RegistrationRequest,
  prepare: (input, ctx) => validateRegistration(input, ctx, input.profile_url),
  async handle(input, ctx) {
    const fetched = ctx.prepared as FetchedBusiness;
    const env = registryEnv(ctx.env);
    const existing = await ctx.tx.registry.byProfileUrl(input.profile_url);
    const id = existing?.id ?? ctx.ids.next('reg');
    const row = registrationRow(id, input, {
      owner: ctx.caller.principal,
      createdMs: existing?.created_ms ?? ctx.now,
      nowMs: ctx.now,
      nextIndexMs: ctx.now + env.reindexIntervalMs,
      indexed: true,
    });
    await ctx.tx.registry.put(row);
    await ctx.tx.registry.replaceServices(id, serviceRows(row, fetched.services, ctx.now));
    env.indexed?.(id, fetched);
    return ok({ registration: presentEntry(row) });
  },
});
