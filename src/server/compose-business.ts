/**
 * The business role, composed over the core: the catalog synced, mail, the OAuth authorization
 * server (buyer accounts are a business's) and the policy that takes its token verifier, frozen;
 * the business's scope and its resolver; payments and calendars; the profile; the doors (MCP, OAuth,
 * the dashboard, payments, the buyer's pages, REST last). Returned as a frozen record. What is read
 * later than it is built (the policy's mechanisms, the scope, the profile) is read when a request
 * comes, through a closure over a constant of this phase; nothing is assigned twice.
 */
import {
  buildBusinessProfile,
  dashboardSessionGate,
  singleScope,
  syncCatalog,
  type BusinessScope,
  type CallScope,
  type LiveBusiness,
  type ScopeResolver,
} from '../operations/index.js';
import { popAlgorithms, type AuthPolicy } from '../security/index.js';
import { mountOAuth, type BuyerDataPort, type OAuthDoor } from '../oauth/index.js';
import { freezePolicy } from './security-wiring.js';
import { buyerDataPort } from './frontdesk-wiring.js';
import { wirePayments } from './payments-wiring.js';
import { wireMail, type MailWiring } from './mail-wiring.js';
import { wireCalendars, type CalendarWiring } from './calendar-wiring.js';
import { dashboardDoor, mcpDoor, oauthDoor, pagesDoor, restDoor } from './doors.js';
import { adminEnvOf, callDoors, polled, type ComposeOptions, type ComposedRole, type Core } from './compose-core.js';

export async function composeBusiness(
  core: Core,
  opts: ComposeOptions,
  live: LiveBusiness,
): Promise<ComposedRole<BusinessScope>> {
  const { store, clock, log, pipeline } = core;
  await publishCatalog(core, live);
  const now = () => clock.now();
  const mail: MailWiring = wireMail(polled(opts.mail, opts.workerPollMs), {
    business: () => live.current(),
    store,
    now,
    log,
  });
  const oauth = await businessOAuth(core, opts, live, {
    mail,
    buyerData: buyerDataPort(pipeline, () => scope),
    accepted: () => authPolicy.accepted,
    capabilities: () => Object.keys((profile(scope).usp as { capabilities: Record<string, unknown> }).capabilities),
  });
  const authPolicy = freezePolicy(withOAuth(core.basePolicy, oauth));
  // What leaves the process when a write commits: the outbox's events, mail (written in the
  // transaction), payment jobs and calendar pushes (written by their steps): each wakes its worker.
  const channels = core
    .channels()
    .register(mail.channel)
    .register({ name: 'payments', committed: () => payments.worker?.nudge() })
    .register({ name: 'calendars', committed: () => calendars.committed() });
  // The scope: what each call runs against (the business's snapshot, its store, policy, services, workers).
  const scope: BusinessScope = Object.freeze({
    store,
    authPolicy,
    env: opts.role?.env ?? adminEnvOf(core, opts, authPolicy),
    webhookResourceUri: core.webhookResourceUri,
    channels,
    business: live,
    origin: core.origin,
    mailSent: Boolean(mail.worker),
  });
  // One business per deployment: every request is this business's, unless the embedder resolves otherwise.
  const resolveScope = opts.resolveScope;
  const scopeOf: ScopeResolver<BusinessScope> = resolveScope ? (req) => resolveScope(req, scope) : singleScope(scope);
  const payments = wirePayments(polled(opts.payments, opts.workerPollMs), { scope, scopeOf, pipeline, now, log });
  if (opts.payments?.startWorker !== false) payments.worker?.start();
  // Mail is written with the public origin (its links, From and Message-ID): it is sent only once the
  // origin is final, at once when configured, else when the listener knows its address. A message left
  // queued by a crash and sent before that would carry the default origin, and a second Message-ID.
  const configured = live.current().publicUrlConfigured;
  const startMail = () => {
    if (opts.mail?.startWorker !== false) mail.worker?.start();
  };
  if (configured) startMail();
  const allowLoopback = Boolean(opts.security?.allowLoopbackProfiles);
  const calendars = wireCalendars(opts.calendars, {
    business: () => live.current(),
    store,
    now,
    log,
    allowLoopback,
    refresh: () => live.refresh(),
    pushPollMs: opts.workerPollMs,
  });
  await calendars.start();
  core.metrics.addCalendars(calendars.figures, calendars.staleMs);
  const profile = businessProfile(core, opts, { authPolicy, oauth, calendars });
  return businessRecord(core, opts, {
    authPolicy,
    scope,
    scopeOf,
    oauth,
    mail,
    payments,
    calendars,
    profile,
    configured,
    ...callDoors(core, opts, { scopeOf, profile }),
  });
}

/**
 * The stored catalog brought in line with the business, its events announced when it changed. Only
 * then: an announcement wakes the dispatcher for a pass, which for a business opened again with its
 * catalog as it was would read empty queues (and keep the repositories that read built).
 */
async function publishCatalog(core: Core, live: LiveBusiness): Promise<void> {
  const events = await syncCatalog(core.store, () => live.current(), core.clock, core.ids);
  if (events.length > 0) core.announce(events);
}

type BusinessParts = {
  authPolicy: AuthPolicy;
  scope: BusinessScope;
  scopeOf: ScopeResolver<BusinessScope>;
  oauth: OAuthDoor | undefined;
  mail: MailWiring;
  payments: ReturnType<typeof wirePayments>;
  calendars: CalendarWiring;
  profile: (s: CallScope) => Record<string, unknown>;
  configured: boolean;
} & ReturnType<typeof callDoors>;

/** The business role's frozen record: its doors in order, its workers and what the listener calls. */
function businessRecord(core: Core, opts: ComposeOptions, p: BusinessParts): ComposedRole<BusinessScope> {
  const { authPolicy, scope, scopeOf, oauth, mail, payments, calendars, profile, configured, rest, mcpHttp } = p;
  const { store, clock, pipeline } = core;
  const startMail = () => {
    if (opts.mail?.startWorker !== false) mail.worker?.start();
  };
  const sessions = dashboardSessionGate({ store, now: () => clock.now(), sandbox: opts.sandbox });
  return Object.freeze({
    authPolicy,
    scope,
    // A new door (OAuth, the dashboard) goes in this list; REST stays last, the fallback.
    doors: Object.freeze([
      mcpDoor(mcpHttp.app, oauth),
      ...(oauth ? [oauthDoor(oauth)] : []),
      dashboardDoor(pipeline, scopeOf, sessions, core.limitKey, mail.preview),
      ...(payments.door ? [payments.door] : []),
      pagesDoor(pipeline, scopeOf),
      restDoor(rest, opts.corsOrigins),
    ]),
    profile: () => profile(scope),
    configuredPublicUrl: configured ? core.publicUrl() : undefined,
    paymentWorker: payments.worker,
    mailWorker: mail.worker,
    mailDestination: mail.describe,
    calendars,
    onListening: () => {
      payments.announce?.();
      if (!configured) startMail();
    },
    stopWorkers: async () => {
      await payments.worker?.stop();
      await mail.worker?.stop();
      await calendars.stop();
    },
    closeDoors: () => mcpHttp.close(),
  });
}

/**
 * OAuth 2.0 (spec 10.2.3, 10.2.4): the authorization server and its resource server, composed before
 * the policy that takes its token verifier. What it reads of the rest is read per request.
 */
async function businessOAuth(
  core: Core,
  opts: ComposeOptions,
  live: LiveBusiness,
  late: { mail: MailWiring; buyerData: BuyerDataPort; accepted: () => readonly string[]; capabilities: () => string[] },
): Promise<OAuthDoor | undefined> {
  if (opts.oauth === false) return undefined;
  const { mail } = late;
  const { metrics } = core;
  return mountOAuth({
    store: core.store,
    log: core.log,
    sandbox: opts.sandbox,
    trustProxy: core.proxies.any,
    clientAddress: core.limitKey,
    baseUrl: core.publicUrl,
    businessName: live.current().def.business.name,
    capabilities: late.capabilities,
    accepted: late.accepted,
    allowLoopback: Boolean(opts.security?.allowLoopbackProfiles),
    now: () => core.clock.now(),
    onAccountEvent: (e) => metrics.recordAccountEvent(e),
    profiles: core.resolver,
    onRegistration: (outcome) => metrics.recordRegistration(outcome),
    buyerData: late.buyerData,
    ...(mail.deliverCode ? { deliverCode: mail.deliverCode, deliverReset: mail.deliverReset } : {}),
    ...(opts.oauth ?? {}),
  });
}

/** The base policy with the authorization server's token verifier and its mechanism. */
function withOAuth(base: AuthPolicy, oauth: OAuthDoor | undefined): AuthPolicy {
  if (!oauth) return base;
  const { resourceServer } = oauth;
  return {
    ...base,
    verifyAccessToken: resourceServer.verifyAccessToken,
    resourceMetadata: resourceServer.resourceMetadata,
    accepted: base.accepted.includes(resourceServer.mechanism)
      ? base.accepted
      : [...base.accepted, resourceServer.mechanism],
  };
}

/** The profile of the scope a request is for, from its business's latest snapshot. */
function businessProfile(
  core: Core,
  opts: ComposeOptions,
  parts: { authPolicy: AuthPolicy; oauth?: OAuthDoor; calendars: CalendarWiring },
) {
  // One list for what the proof check accepts, the profile publishes and the DPoP challenge names.
  const popAlgs = popAlgorithms(parts.authPolicy.allowEs256);
  const { role } = opts;
  return (s: CallScope): Record<string, unknown> => {
    const baseUrl = core.baseUrlOf(s);
    if (role || !s.business)
      return role!.profile({ baseUrl, mechanisms: parts.authPolicy.accepted, popAlgorithms: popAlgs });
    return buildBusinessProfile(s.business.current(), {
      baseUrl,
      mcpEndpoint: `${baseUrl}/mcp`,
      sandbox: opts.sandbox,
      mechanisms: s.authPolicy.accepted,
      popAlgorithms: popAlgs,
      keys: core.keyring.published(core.clock.now()),
      tokenEndpoint: parts.oauth ? `${baseUrl}/oauth/token` : undefined,
      health: () => parts.calendars.health(),
    });
  };
}
