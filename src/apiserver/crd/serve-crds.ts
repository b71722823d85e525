import { customResourceDefinitionType, type ResourceRegistry } from '../../api/index.js';
import { crdStrategy } from './crd-strategy.js';

/** The CustomResourceDefinition type as the server serves it: with the strategy only the server layer can give it. */
export const servedCrdType = Object.freeze({ ...customResourceDefinitionType, strategy: crdStrategy });

/** Adds CustomResourceDefinition to a registry that lacks it (every API server serves it). */
export function serveCustomResourceDefinitions(registry: ResourceRegistry): void {
  const { group, version, resource } = customResourceDefinitionType;
  if (!registry.lookup(group, version, resource)) registry.add([servedCrdType]);
}
