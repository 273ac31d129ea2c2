/** The business marks a confirmed booking as in progress. */
import { businessMove } from './business-move-row.js';

export const startBooking = businessMove('start', {
  name: 'start_booking',
  segment: 'start',
  cli: 'start',
  summary: 'The business marks a confirmed booking as in progress.',
});
