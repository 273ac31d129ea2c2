export { OperatorRefusal, createOperatorDoor } from './door.js';
export type { OperatorBusiness, OperatorDesk, OperatorDoorOptions } from './door.js';
