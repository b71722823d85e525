// One run of one benchmark in a process of its own (what `runIsolated` forks): loads the file,
// runs its benchmark at the given index once, and sends the result to the parent.
//   node [loader] bench-child.js FILE INDEX
import { loadBenchFile } from './bench-file.js';

const [file, index] = process.argv.slice(2);
let message: { result: unknown } | { error: string };
try {
  const benches = await loadBenchFile(file!);
  const bench = benches[Number(index)];
  if (!bench) throw new Error(`${file} has no benchmark #${index}`);
  message = { result: await bench.run() };
} catch (error) {
  message = { error: error instanceof Error ? error.message : String(error) };
}
// Whatever the benchmark left running (a server, a timer) ends with the process.
process.send!(message, () => process.exit(0));
