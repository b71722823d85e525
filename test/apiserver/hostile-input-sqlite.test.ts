import { hostileInputSuite } from './hostile-input-suite.js';

hostileInputSuite('sqlite');
