export { createRegistryFeedDoor, isRegistryFeedPath, registryFeedRefusal } from './door.js';
export type { RegistryFeedDoorOptions } from './door.js';
