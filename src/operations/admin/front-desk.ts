/** The front desk's admin operations: walk-in and phone bookings, clients and their notes, a buyer's data exported or erased. */
import type { OperationDef } from '../core/define.js';
import { createWalkInBooking } from './create-walk-in-booking.js';
import { findClients } from './find-clients.js';
import { getClient } from './get-client.js';
import { setClientNote } from './set-client-note.js';
import { exportBuyerData } from './export-buyer-data.js';
import { eraseBuyerData } from './erase-buyer-data.js';

export const FRONT_DESK_OPERATIONS: readonly OperationDef[] = [
  createWalkInBooking,
  getClient,
  findClients,
  setClientNote,
  exportBuyerData,
  eraseBuyerData,
] as OperationDef[];
