import { defineOperation } from '../core/define.js';
import { createRow } from './definition-rows.js';

/** Add a service to the catalog: the business file's Service object; it is published at once with service.created. */
export const createService = defineOperation(
  createRow('services', {
    name: 'create_service',
    path: '/admin/services',
    dashboard: 'service_create',
    summary:
      "Add a service to the catalog: the business file's Service object; it is published at once with service.created.",
  }),
);
