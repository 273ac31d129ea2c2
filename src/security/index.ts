export { hashApiKey, apiKeyMatches } from './api-key.js';
export { checkProfileUrl } from './profile-url.js';
