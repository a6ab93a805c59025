/** What other areas (and the HTTP pipeline, the process, the demo project) may use of the platform: outbox e-mails, API keys and their cache, creating a project. */
export { recordEmail, type EmailInput } from './outbox.service.js';
export { API_KEY_FORMAT, findKeyByToken, secretsEqual } from './api-keys.js';
export { AuthCache } from './auth-cache.js';
export { createProject, type IssuedKey } from './projects.service.js';
