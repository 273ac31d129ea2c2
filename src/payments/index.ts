export { ProviderError, WebhookRejected } from './port.js';
export type { PaymentProvider, CheckoutRequest, CheckoutSession, RefundRequest, RefundResult } from './port.js';
export { stripeProvider, toEvents } from './stripe.js';
export type { StripeOptions } from './stripe.js';
export { PaymentWorker, retryDelayMs } from './worker.js';
export type { PaymentWorkerOptions, PaymentWorkerLog } from './worker.js';
