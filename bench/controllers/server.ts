// Child process of bench/controllers/namespace.ts (and others): a real svc-apiserver over HTTPS on
// the embedded store (sqlite in the data dir given as argv[2]; argv[3] may name another --storage,
// e.g. memory). Prints `{"svcconfig": <path>}` once it listens; exits on the IPC message "stop".
import { startApiServer } from '../../src/cli/apiserver-command.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: server.ts <data-dir>');
const server = await startApiServer([`--storage=${process.argv[3] ?? 'sqlite'}`, '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
process.on('message', async (message) => {
  if (message === 'stop') {
    await server.close();
    process.exit(0);
  }
});
process.stdout.write(`${JSON.stringify({ svcconfig: server.svcconfigPath })}\n`);
