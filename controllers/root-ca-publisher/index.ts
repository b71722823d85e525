export { ROOT_CA_CONFIGMAP, rootCaPublisher, type RootCaPublisherOptions } from './root-ca-publisher.js';
