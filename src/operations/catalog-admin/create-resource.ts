import { defineOperation } from '../core/define.js';
import { createRow } from './definition-rows.js';

/** Add a staff member, room or piece of equipment with its weekly hours. */
export const createResource = defineOperation(
  createRow('resources', {
    name: 'create_resource',
    path: '/admin/resources',
    dashboard: 'resource_create',
    summary: 'Add a staff member, room or piece of equipment with its weekly hours.',
  }),
);
