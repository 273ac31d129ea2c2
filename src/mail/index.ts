export { MailSendError, type MailAddress, type MailTransport, type OutgoingMail } from './port.js';
export { smtpTransport, redactSmtpUrl, checkSmtpUrl } from './smtp.js';
export { dirTransport } from './dir.js';
export { renderMail, messageIdOf, type RenderContext } from './render.js';
export {
  MailWorker,
  mailProvider,
  mailRetryDelayMs,
  type MailProviderOptions,
  type MailWorkerOptions,
} from './worker.js';
export { previewMails, PREVIEW_KINDS, type MailPreview } from './preview.js';
