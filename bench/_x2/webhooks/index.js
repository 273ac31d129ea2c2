export { WebhookDispatcher, eventBody } from './dispatcher.js';
export { httpWebhookSender, signedDelivery, checkWebhookUrl, WEBHOOK_COMPONENTS } from './sender.js';
export { nextAttempt, DEFAULT_RETRY } from './schedule.js';
export { loadKeyring, RETIRED_KEY_GRACE_MS } from './signing-keys.js';
//# sourceMappingURL=index.js.map