import { apiServerSuite } from './api-suite.js';

apiServerSuite('memory');
