// Child process of bench/apiserver/hostile.ts: svc-apiserver as its command starts it (HTTPS, a
// generated CA, the admin token, sqlite in a fresh data dir). Prints one JSON line: port, token, CA.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../../src/cli/apiserver-command.js';

const api = await startApiServer({ dataDir: mkdtempSync(join(tmpdir(), 'svc-bench-hostile-')), storage: 'sqlite', bindAddress: '127.0.0.1', securePort: 0 });
process.stdout.write(`${JSON.stringify({ port: api.port, token: api.adminToken, ca: api.caPem })}\n`);
process.on('SIGTERM', () => void api.close().then(() => process.exit(0)));
