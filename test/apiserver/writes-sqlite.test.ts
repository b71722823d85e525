import { writesSuite } from './writes-suite.js';

writesSuite('sqlite');
