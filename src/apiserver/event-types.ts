import { CORE_GROUP, EVENTS_GROUP, type ResourceType } from '../api/index.js';

/**
 * Whether a type is Events (core v1 or events.svc.io v1): the one kind the server treats apart —
 * a time to live on each (event-ttl-store.ts), a budget of their own among the last-written
 * versions (written-objects.ts), and optionally no objects in the watch cache (resource-caches.ts).
 */
export const isEventType = (type: Pick<ResourceType, 'group' | 'resource'>): boolean =>
  type.resource === 'events' && (type.group === CORE_GROUP || type.group === EVENTS_GROUP);
