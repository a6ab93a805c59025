// The SDK is the package in sdk/ (`@commerce-api/sdk`); this re-export keeps older in-repo imports working.
export * from '../../sdk/src/index.js';
export type { CommerceClientOptions as ClientOptions } from '../../sdk/src/index.js';
