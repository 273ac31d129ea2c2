export { createPaymentWebhook, paymentWebhookPath, refusal as paymentWebhookRefusal } from './webhook.js';
export type { PaymentWebhookOptions } from './webhook.js';
