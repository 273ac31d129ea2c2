import { defineOperation } from '../core/define.js';
import { updateRow } from './definition-rows.js';

/** Change a service (a merge patch of its business-file object: name, description, price, duration and buffers, policies, capacity, resources, locations); platforms get service.updated. */
export const updateService = defineOperation(
  updateRow('services', {
    name: 'update_service',
    path: '/admin/services/{service_id}',
    dashboard: 'service_update',
    summary:
      'Change a service (a merge patch of its business-file object: name, description, price, duration and buffers, policies, capacity, resources, locations); platforms get service.updated.',
  }),
);
