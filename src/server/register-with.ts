/**
 * `usp-server serve --register-with URL`: the business registers itself with a discovery registry
 * (spec 6.1) once it listens, and keeps that registration current: again on a timer (well inside
 * the registry's 24-hour re-index ceiling) and soon after its catalog changes. Proof of control is
 * the registry's rule (docs/DECISIONS.md, Registry): the request presents the business's own
 * profile as the caller's profile and is signed (RFC 9421) with the business's active signing key,
 * which that profile publishes in `keys`. Failures are logged and retried with a growing pause;
 * they never stop the business.
 */
import type { KeyObject } from 'node:crypto';
import type { BusinessDef } from '../domain/index.js';
import type { Logger, RegistrationInput } from '../operations/index.js';
import { contentDigest, signRequest, uspRequiredComponents } from '../security/index.js';

/** Re-register this often by default: a quarter of the registry's daily ceiling. */
export const DEFAULT_REREGISTER_MS = 6 * 3600 * 1000;
/** First retry after a failed registration; doubles up to the re-register interval. */
const FIRST_RETRY_MS = 30_000;
/** Catalog changes in a burst are sent as one registration this long after the last one. */
const CATALOG_SETTLE_MS = 1_000;

export interface RegistrarOptions {
  /** The registry's base URL (its REST endpoint), e.g. https://registry.example. */
  registryUrl: string;
  /** The business's profile URL, known once the server listens. */
  profileUrl(): string;
  business(): BusinessDef;
  /** The key the business's profile publishes (its active webhook signing key). */
  signingKey(): { kid: string; privateKey: KeyObject };
  log: Logger;
  /** Run before each registration (a hosted business: compose it and read its newest definition and key). */
  prepare?: () => Promise<void>;
  /** The registry accepted a registration (a hosted deployment records the id, to remove it later). */
  onRegistered?: (id: string) => void;
  intervalMs?: number;
  firstRetryMs?: number;
  settleMs?: number;
}

export interface Registrar {
  /** Register now; resolves with whether the registry accepted it. Never throws. */
  register(): Promise<boolean>;
  /** The catalog changed: register again shortly. */
  catalogChanged(): void;
  /** The registration id the registry gave, once accepted. */
  registrationId(): string | undefined;
  stop(): void;
}

/**
 * What the registry indexes about the business, read from its business file (schemas/registry.json
 * RegistrationRequest).
 */
function registrationOf(def: BusinessDef, profileUrl: string): RegistrationInput {
  const active = def.services.filter((s) => (s as { status?: string }).status !== 'archived');
  const categories = new Set<string>();
  for (const s of active) {
    for (const c of (s as { categories?: Array<Record<string, unknown>> }).categories ?? []) {
      for (const v of [c.parent_id, c.name])
        if (typeof v === 'string' && v) categories.add(v.replace(/^cat_/, '').toLowerCase());
    }
  }
  const loc = def.business.locations.find((l) => l.coordinates) ?? def.business.locations[0];
  const description = (def.business as { description?: string }).description;
  return {
    profile_url: profileUrl,
    deployment_mode: 'standalone',
    name: def.business.name,
    ...(description ? { description: description.slice(0, 2000) } : {}),
    verticals: [...new Set(active.map((s) => s.type))].slice(0, 50),
    categories: [...categories].slice(0, 50).map((c) => c.slice(0, 200)),
    ...(loc
      ? {
          location: {
            ...(loc.address ? { address: loc.address } : {}),
            ...(loc.coordinates ? { coordinates: loc.coordinates } : {}),
          },
        }
      : {}),
    timezone: def.business.timezone,
  };
}

/** The signed request: the registry checks the signature against the keys of the profile it names. */
function signedRegistration(
  registryUrl: string,
  body: RegistrationInput,
  key: { kid: string; privateKey: KeyObject },
  nowMs: number,
): { url: string; init: RequestInit } {
  const url = `${registryUrl.replace(/\/$/, '')}/registry/businesses`;
  const text = JSON.stringify(body);
  const bytes = new TextEncoder().encode(text);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'USP-Agent': `profile="${body.profile_url}"`,
    'Content-Digest': contentDigest(bytes),
  };
  const components = uspRequiredComponents({ url, headers });
  const sig = signRequest({ method: 'POST', url, headers, body: bytes }, key, {
    components,
    created: Math.floor(nowMs / 1000),
  });
  return { url, init: { method: 'POST', headers: { ...headers, ...sig }, body: text } };
}

/**
 * Remove a registration (DELETE /registry/businesses/{id}), signed like the registration: the
 * registry fetches the profile to check the key, so the profile must still be served when this is
 * sent. Resolves with whether the registry removed it (or no longer knew it). Never throws.
 */
export async function deregister(
  o: {
    registryUrl: string;
    registrationId: string;
    profileUrl: string;
    signingKey: { kid: string; privateKey: KeyObject };
    log: Logger;
  },
  nowMs = Date.now(),
): Promise<boolean> {
  const url = `${o.registryUrl.replace(/\/$/, '')}/registry/businesses/${encodeURIComponent(o.registrationId)}`;
  const headers: Record<string, string> = { 'USP-Agent': `profile="${o.profileUrl}"` };
  const components = uspRequiredComponents({ url, headers });
  try {
    const sig = signRequest({ method: 'DELETE', url, headers }, o.signingKey, {
      components,
      created: Math.floor(nowMs / 1000),
    });
    const res = await fetch(url, {
      method: 'DELETE',
      headers: { ...headers, ...sig },
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, any>;
    if (res.ok || res.status === 404) {
      o.log.info('registration removed from the registry', { registry: o.registryUrl, id: o.registrationId });
      return true;
    }
    o.log.warn('the registry refused to remove the registration', {
      registry: o.registryUrl,
      id: o.registrationId,
      status: res.status,
      code: body.code ?? body.error?.code,
    });
  } catch (err) {
    o.log.warn('could not reach the registry to remove the registration', {
      registry: o.registryUrl,
      error: String((err as Error).message ?? err),
    });
  }
  return false;
}

export function createRegistrar(o: RegistrarOptions): Registrar {
  const interval = o.intervalMs ?? DEFAULT_REREGISTER_MS;
  const firstRetry = o.firstRetryMs ?? FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<boolean> | undefined;
  let again = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void register(), ms);
    timer.unref();
  };

  const state: AttemptState = { id: undefined, failures: 0 };
  const attempt = () => attemptRegistration(o, state);

  const register = (): Promise<boolean> => {
    if (stopped) return Promise.resolve(false);
    if (inFlight) {
      // A change while one is on its way: send once more after it, with the newest catalog.
      again = true;
      return inFlight;
    }
    inFlight = attempt().then((ok) => {
      inFlight = undefined;
      if (again) {
        again = false;
        schedule(0);
      } else {
        schedule(ok ? interval : Math.min(interval, firstRetry * 2 ** (state.failures - 1)));
      }
      return ok;
    });
    return inFlight;
  };

  return {
    register,
    catalogChanged() {
      schedule(o.settleMs ?? CATALOG_SETTLE_MS);
    },
    registrationId: () => state.id,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** The registration known so far and the failures in a row since the last success. */
interface AttemptState {
  id: string | undefined;
  failures: number;
}

/** One signed registration sent; true when the registry took it (`state` follows the outcome). */
async function attemptRegistration(o: RegistrarOptions, state: AttemptState): Promise<boolean> {
  try {
    await o.prepare?.();
    const registration = registrationOf(o.business(), o.profileUrl());
    const { url, init } = signedRegistration(o.registryUrl, registration, o.signingKey(), Date.now());
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    const body = (await res.json().catch(() => ({}))) as Record<string, any>;
    if (res.status === 201 || res.status === 200) {
      const known = state.id !== undefined;
      state.id = body.registration?.id ?? state.id;
      if (state.id) o.onRegistered?.(state.id);
      o.log.info(known ? 'registration refreshed' : 'registered with the registry', {
        registry: o.registryUrl,
        id: state.id,
      });
      state.failures = 0;
      return true;
    }
    state.failures++;
    o.log.warn('the registry refused the registration', {
      registry: o.registryUrl,
      status: res.status,
      code: body.code ?? body.error?.code,
      detail: body.detail ?? body.error?.message,
      failures: state.failures,
    });
  } catch (err) {
    state.failures++;
    const error = String((err as Error).message ?? err);
    o.log.warn('could not reach the registry', { registry: o.registryUrl, error, failures: state.failures });
  }
  return false;
}
