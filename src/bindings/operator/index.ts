export { createOperatorDoor } from './door.js';
export type { OperatorDoorOptions } from './door.js';
export { OperatorRefusal } from './desk.js';
export type { OperatorBusiness, OperatorDesk } from './desk.js';
