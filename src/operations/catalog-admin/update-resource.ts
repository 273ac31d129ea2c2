import { defineOperation } from '../core/define.js';
import { updateRow } from './definition-rows.js';

/** Change a resource (a merge patch: name, type, weekly hours, exceptions, location); the services it delivers are republished. */
export const updateResource = defineOperation(
  updateRow('resources', {
    name: 'update_resource',
    path: '/admin/resources/{resource_id}',
    dashboard: 'resource_update',
    summary:
      'Change a resource (a merge patch: name, type, weekly hours, exceptions, location); the services it delivers are republished.',
  }),
);
