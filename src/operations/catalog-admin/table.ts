/**
 * The business's edits of its own definition: services, resources (staff, rooms, equipment) with
 * their weekly hours, and locations. Business-only rows of the one operations table (REST under
 * /admin), each audited by the pipeline and answered with its catalog events.
 */
import type { OperationDef } from '../define.js';
import { createService } from './create-service.js';
import { updateService } from './update-service.js';
import { archiveService } from './archive-service.js';
import { createResource } from './create-resource.js';
import { updateResource } from './update-resource.js';
import { createLocation } from './create-location.js';
import { updateLocation } from './update-location.js';

export const CATALOG_ADMIN_OPERATIONS: readonly OperationDef[] = [
  createService,
  updateService,
  archiveService,
  createResource,
  updateResource,
  createLocation,
  updateLocation,
] as OperationDef[];
