/** The business marks the buyer as a no-show. */
import { businessMove } from './business-move-row.js';

export const markNoShow = businessMove('no_show', {
  name: 'mark_no_show',
  segment: 'no-show',
  cli: 'no-show',
  dashboard: 'no_show',
  summary: 'The business marks the buyer as a no-show.',
});
