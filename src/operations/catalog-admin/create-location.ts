import { defineOperation } from '../core/define.js';
import { createRow } from './definition-rows.js';

/** Add a place of business. */
export const createLocation = defineOperation(
  createRow('locations', {
    name: 'create_location',
    path: '/admin/locations',
    dashboard: 'location_create',
    summary: 'Add a place of business.',
  }),
);
