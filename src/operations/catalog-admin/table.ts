/**
 * The business's edits of its own definition: services, resources (staff, rooms, equipment) with
 * their weekly hours, locations, the business's details and settings, and the services' categories. Business-only rows of the one operations table (REST under
 * /admin), each audited by the pipeline and answered with its catalog events.
 */
import type { OperationDef } from '../core/define.js';
import { createService } from './create-service.js';
import { updateService } from './update-service.js';
import { archiveService } from './archive-service.js';
import { createResource } from './create-resource.js';
import { updateResource } from './update-resource.js';
import { createLocation } from './create-location.js';
import { updateLocation } from './update-location.js';
import { updateBusiness } from './update-business.js';
import { updateSettings } from './update-settings.js';
import { listCategories } from './list-categories.js';
import { createCategory } from './create-category.js';
import { updateCategory } from './update-category.js';
import { deleteCategory } from './delete-category.js';

export const CATALOG_ADMIN_OPERATIONS: readonly OperationDef[] = [
  createService,
  updateService,
  archiveService,
  createResource,
  updateResource,
  createLocation,
  updateLocation,
  updateBusiness,
  updateSettings,
  listCategories,
  createCategory,
  updateCategory,
  deleteCategory,
] as OperationDef[];
