import { watchSuite } from './watch-suite.js';

watchSuite('etcd');
