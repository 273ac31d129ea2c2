export { WebhookDispatcher } from './dispatcher.js';
export { eventBody } from '../store/index.js';
export type { AttemptResult, DispatcherOptions } from './dispatcher.js';
export { httpWebhookSender, signedDelivery, checkWebhookUrl, WEBHOOK_COMPONENTS } from './sender.js';
export type { WebhookSender, SendResult } from './sender.js';
export { nextAttempt, DEFAULT_RETRY } from './schedule.js';
export type { RetryPolicy } from './schedule.js';
export { loadKeyring, DEFAULT_KEY_OVERLAP_MS, PROFILE_CACHE_SECONDS } from './signing-keys.js';
export type { SigningKeyring } from './signing-keys.js';
