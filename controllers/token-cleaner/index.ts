export { tokenCleaner, type TokenCleanerOptions } from './token-cleaner.js';
export { bootstrapToken, isExpired, PUBLIC_NAMESPACE, SYSTEM_NAMESPACE, type BootstrapToken } from './bootstrap-tokens.js';
