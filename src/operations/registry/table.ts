/**
 * The registry's operations table (spec 6): what `usp-server registry` serves instead of the
 * business's operations, through the same pipeline and doors.
 */
import type { OperationDef } from '../core/define.js';
import { registerBusiness } from './register-business.js';
import { searchBusinesses } from './search-businesses.js';
import { searchServices } from './search-services.js';
import { getRegistration } from './get-registration.js';
import { updateRegistration } from './update-registration.js';
import { deleteRegistration } from './delete-registration.js';
import { getPlatformProfile } from './get-registry-platform-profile.js';
import { receiveCatalogEvent } from './receive-catalog-event.js';

export const REGISTRY_OPERATIONS: readonly OperationDef[] = [
  registerBusiness,
  searchBusinesses,
  searchServices,
  getRegistration,
  updateRegistration,
  deleteRegistration,
  getPlatformProfile,
  receiveCatalogEvent,
] as OperationDef[];

/** The feed door's rows, by what they do (a door names no operation). */
export const REGISTRY_FEED_OPERATIONS = {
  platformProfile: getPlatformProfile,
  catalogEvent: receiveCatalogEvent,
} as const;
