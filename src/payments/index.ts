export { ProviderError, WebhookRejected } from './port.js';
export type { PaymentProvider, CheckoutRequest, CheckoutSession, RefundRequest, RefundResult } from './port.js';
export { flagHelp, requiredFlagWords } from './adapter.js';
export type { PaymentAdapter, PaymentConnect, PaymentFlag } from './adapter.js';
export {
  paymentAdapter,
  paymentAdapters,
  paymentChoices,
  paymentFlagTable,
  registerPaymentAdapter,
} from './adapters.js';
export { stripeEventVerifier, stripeProvider, toEvents } from './stripe.js';
export type { StripeOptions } from './stripe.js';
export { PaymentWorker, retryDelayMs } from './worker.js';
export type { PaymentWorkerOptions, PaymentWorkerLog } from './worker.js';
