import { watchSuite } from './watch-suite.js';

watchSuite('sqlite');
