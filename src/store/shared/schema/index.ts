/** The schema, written once for both engines; each engine's migration list renders it with its types. */
export * from './booking-tables.js';
export * from './delivery-tables.js';
export * from './feature-tables.js';
export * from './registry-tables.js';
export * from './types.js';
