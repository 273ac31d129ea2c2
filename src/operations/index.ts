export {
  OPERATIONS,
  listenOperation,
  operationByName,
  operationForPage,
  operationForCommand,
  operationForDashboard,
  operationForPaymentEvents,
} from './table.js';
export { PAYMENT_EVENT } from './payment-events.js';
export type { PaymentEvent } from './payment-events.js';
export type { MoneyView } from './admin/money-view.js';
export { Pipeline } from './core/pipeline.js';
export {
  singleScope,
  type BusinessScope,
  type BusinessSource,
  type CallScope,
  type ScopeResolver,
} from './core/scope.js';
export { PublicOrigin, DEFAULT_PUBLIC_URL } from './public-origin.js';
export type { CallRecord, OperationRequest, OperationResponse, PipelineDeps } from './core/pipeline.js';
export { silentLogger } from './core/logger.js';
export type { Logger } from './core/logger.js';
export { MissingResource, ProtocolError, PROTOCOL_ERROR_CODES } from './core/errors.js';
export { callerCorrelationId, correlationIdOf } from './core/correlation.js';
export type { ProtocolErrorCode, FieldError } from './core/errors.js';
export type {
  OperationDef,
  RegistryContext,
  ExtensionKey,
  CapabilityKey,
  RestRoute,
  RateBucket,
  BuyerPage,
  DashboardAction,
  AppView,
} from './core/define.js';
export { jsonDoorRows, rateRuleOf } from './core/define.js';
export type { AccessTier, OAuthScope } from '../domain/index.js';
export { OAUTH_SCOPES } from '../domain/index.js';
export { USP_VERSION, uspEnvelope } from './core/envelope.js';
export type { UspEnvelope } from './core/envelope.js';
export { systemClock, ManualClock, ShiftedClock, clockFromSetting, CLOCK_VARIABLE } from './core/clock.js';
export { AvailabilityCache, DEFAULT_AVAILABILITY_CACHE_BYTES } from './availability-cache.js';
export type { AvailabilityCacheStats } from './availability-cache.js';
export { randomIds } from './core/ids.js';
export { compileBusiness, suspensionSentence } from './business.js';
export type { Caller } from './core/context.js';
export type { Clock } from './core/clock.js';
export type { IdSource } from './core/ids.js';
export type {
  Business,
  BusinessSuspension,
  PaymentMode,
  PaymentProviderFacts,
  PaymentProviderKind,
} from './business.js';
export type { Presented } from './core/authenticate.js';
export type { HttpEvidence, McpAuthorization, AuthPolicy } from '../security/index.js';
export { isLoopbackAddress } from '../security/index.js';
export { buildBusinessProfile } from './profile.js';
export type { ProfileOptions } from './profile.js';
export { sweep, type SweepTarget } from './sweep.js';
export { EventChannels, type EventChannel, type RaisedInTransaction } from './core/channels.js';
export { queueMailForEvents } from './notifications/mail-messages.js';
export { catalogEvent, syncCatalog, publishCatalog, publishedOf } from './catalog-sync.js';
export { LiveBusiness, chooseDefinition, importDefinition, storedDefinition } from './live-business.js';
export type { DefinitionSource, ImportSummary, CompileOptions } from './live-business.js';
export { entriesOf, documentOf } from './catalog-admin/definition-document.js';
export { settingsFields, type SettingField } from './catalog-admin/settings-fields.js';
export type { Message } from '../domain/index.js';
export type { OutboxEvent } from '../store/index.js';
export type { CheckoutView, BookingPageView } from './bookings/views.js';
export type { WaitlistOfferView } from './waitlist/view-waitlist-offer.js';
export { bookingPageView } from './bookings/views.js';
export {
  PLATFORM_MESSAGES_CAPABILITY,
  mailableAddress,
  reminderOptOutKey,
  type MailKind,
} from './notifications/mail-messages.js';
export {
  CALENDAR_SECRET_ENV_PREFIX,
  calendarSecretPrefix,
  formatMoney,
  majorAmount,
  parseMoney,
  negotiateLocale,
  moneyFacts,
  bookingDeadline,
  memoByString,
  memoPerObject,
} from '../domain/index.js';
export type { MoneyFacts, BookingFactsInput } from '../domain/index.js';
/** The start a slot id carries: a hold names its slot only by id, and the doors say when it starts. */
export { decodeSlotId } from '../domain/index.js';
export { REGISTRY_FEED_OPERATIONS, REGISTRY_OPERATIONS } from './registry/table.js';
export { addBusinessUser, dashboardSessionGate, normalizeBusinessEmail } from './admin/dashboard-sessions.js';
export { dashboardSetupPending, offerDashboardSetup, SETUP_TTL_MS } from './admin/set-up-dashboard-owner.js';
export type { DashboardSession, DashboardSessionGate } from './admin/dashboard-sessions.js';
export { dashboardSignInEnv, type DashboardSignInEnv } from './admin/sign-in-env.js';
export { FEED_EVENTS_PATH, PLATFORM_PROFILE_PATH, feedSubscriptionKey } from './registry/feed-paths.js';
export type { FeedSubscriptionNote } from './registry/feed-paths.js';
export { reindexDue, seedRegistration } from './registry/reindex.js';
export type { ReindexReport } from './registry/reindex.js';
export type { RegistryEnv } from './registry/env.js';
export { MAX_FETCHES_PER_INDEX } from './registry/indexing.js';
export type { RegistrationInput } from './registry/schemas.js';
export type { OperationEnv, AdminEnv } from './core/context.js';
export { serviceTerms, bookingNoShowFee, paymentWindowOf } from './terms.js';
export type { ServiceTerms, CancelFacts, RescheduleFacts, WindowFacts } from './terms.js';
export { paymentDeadline, shortestWindowSeconds, type PaymentWindowSettings } from '../domain/index.js';
export { unknownMemberWarnings } from './core/unknown-members.js';
export { WEBHOOK_RESOURCE_PREFIX, loadWebhookResourceKey, webhookResourceNamer } from './webhook-resource.js';
export {
  EXTENSIONS,
  OUR_NAMESPACE,
  META_WEBHOOK,
  META_WEBHOOK_RESOURCE,
  deprecatedNameWarning,
} from './core/extensions.js';
export type { ExtensionCapability } from './core/extensions.js';
export { businessHealth, type BusinessHealth } from './admin/business-health.js';
