import { randomInt } from 'node:crypto';

// No vowels (no accidental words) and no look-alikes such as 0/o, 1/l.
/** The characters of generated names and of Kubernetes' SafeEncodeString. */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const ALPHABET = SAFE_ALPHABET;
const RANDOM_LENGTH = 5;
/** A generated name must still fit a DNS label, 63 characters. */
export const MAX_GENERATE_NAME_PREFIX = 63 - RANDOM_LENGTH;

/** The name for `metadata.generateName`: the prefix (cut to 58 characters) and 5 random ones. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return prefix.slice(0, MAX_GENERATE_NAME_PREFIX) + suffix;
}
