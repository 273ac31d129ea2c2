export { mountOAuth, GENERIC_PROFILE_PATH } from './door.js';
export type { OAuthDoor, OAuthDoorOptions } from './door.js';
export type { BuyerDataPort } from './account-data.js';
export { USP_SCOPES, PROFILE_METADATA, OAUTH_ROUTES } from './provider.js';
export { hashPassword, verifyPassword } from './passwords.js';
