export { bestVolume, bytesOf, capacityBytes, classOf, mismatch, preBoundTo, requestedBytes, volumeFitsNode, volumeNodeTerms, waitsForFirstConsumer } from './claim-matching.js';
export { CLAIM_INDEX, podClaimKeys, podsByClaim } from './pods-by-claim.js';
