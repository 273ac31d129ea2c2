import { defineOperation } from '../core/define.js';
import { updateRow } from './definition-rows.js';

/**
 * Archive a service: it is no longer offered (no new holds or bookings), its existing bookings stand,
 * it stays in the catalog with status `archived` (retained for history, spec 3.11) and platforms get
 * `service.deleted`, the spec's event for a service withdrawn from the catalog.
 */
export const archiveService = defineOperation(
  updateRow('services', {
    name: 'archive_service',
    path: '/admin/services/{service_id}/archive',
    dashboard: 'service_archive',
    summary: 'Archive a service: no new bookings, existing ones stand; platforms get service.deleted.',
    patch: (current) => ({ ...current, status: 'archived' }),
  }),
);
