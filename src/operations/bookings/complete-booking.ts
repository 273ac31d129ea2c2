/** The business marks a booking as completed. */
import { businessMove } from './business-move-row.js';

export const completeBooking = businessMove('complete', {
  name: 'complete_booking',
  segment: 'complete',
  cli: 'complete',
  dashboard: 'complete',
  summary: 'The business marks a booking as completed.',
});
