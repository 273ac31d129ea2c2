/**
 * The business's admin operations: its own bookings by day and week, declines, refunds, run-time schedule
 * changes, waitlists, the delivery log, signing keys, platform keys, the audit log and the day's
 * figures. Business-only rows of the one operations table (REST under /admin, no MCP tools), served
 * by the same pipeline; the dashboard door calls them too. Signing in to the dashboard and out of it
 * are rows too, served by the dashboard's forms only (`onlyDoor`).
 */
import type { OperationDef } from '../core/define.js';
import { listBookings } from './list-bookings.js';
import { getBookingHistory } from './get-booking-history.js';
import { declineBooking } from './decline-booking.js';
import { refundBookingPayment } from './refund-booking-payment.js';
import { addTimeOff } from './add-time-off.js';
import { addScheduleException } from './add-schedule-exception.js';
import { listScheduleChanges } from './list-schedule-changes.js';
import { removeScheduleChange } from './remove-schedule-change.js';
import { listServiceWaitlist } from './list-service-waitlist.js';
import { listWebhookDeliveries } from './list-webhook-deliveries.js';
import { listSentMail } from './list-sent-mail.js';
import { retryWebhookDelivery } from './retry-webhook-delivery.js';
import { rotateSigningKey } from './rotate-signing-key.js';
import { listSigningKeys } from './list-signing-keys.js';
import { createApiKey } from './create-api-key.js';
import { listApiKeys } from './list-api-keys.js';
import { revokeApiKey } from './revoke-api-key.js';
import { listAuditLog } from './list-audit-log.js';
import { getDayFigures } from './get-day-figures.js';
import { FRONT_DESK_OPERATIONS } from './front-desk.js';
import { signInDashboardUser } from './sign-in-dashboard-user.js';
import { signOutDashboardUser } from './sign-out-dashboard-user.js';
import { setUpDashboardOwner } from './set-up-dashboard-owner.js';

export const ADMIN_OPERATIONS: readonly OperationDef[] = [
  listBookings,
  getBookingHistory,
  declineBooking,
  refundBookingPayment,
  addTimeOff,
  addScheduleException,
  listScheduleChanges,
  removeScheduleChange,
  listServiceWaitlist,
  listWebhookDeliveries,
  retryWebhookDelivery,
  listSentMail,
  rotateSigningKey,
  listSigningKeys,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  listAuditLog,
  getDayFigures,
  ...FRONT_DESK_OPERATIONS,
  signInDashboardUser,
  signOutDashboardUser,
  setUpDashboardOwner,
] as OperationDef[];
