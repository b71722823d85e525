export { legacyTokenCleaner, type LegacyTokenCleanerOptions } from './legacy-token-cleaner.js';
