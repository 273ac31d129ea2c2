import { defineOperation } from '../core/define.js';
import { updateRow } from './definition-rows.js';

/** Change a location (a merge patch: name, address, coordinates); the services offered there are republished. */
export const updateLocation = defineOperation(
  updateRow('locations', {
    name: 'update_location',
    path: '/admin/locations/{location_id}',
    dashboard: 'location_update',
    summary:
      'Change a location (a merge patch: name, address, coordinates); the services offered there are republished.',
  }),
);
