import { startEtcd, startEtcdCluster } from '../test/support/etcd.ts';
import { Etcd3 } from 'etcd3';
const t0 = Date.now();
const e = await startEtcd();
console.log('single up', e.endpoint, Date.now() - t0);
const c = new Etcd3({ hosts: [e.endpoint] });
const put = await c.kv.put({ key: Buffer.from('/a/x'), value: Buffer.from('1') });
console.log('put', put.header);
for (let i = 0; i < 5; i++) await c.kv.put({ key: Buffer.from('/a/x'), value: Buffer.from(String(i)) });
const cur = Number((await c.kv.range({ key: Buffer.from('/a/x') })).header.revision);
console.log('cur', cur);
try { await c.kv.range({ key: Buffer.from('/a/x'), revision: cur + 5 }); } catch (err: any) { console.log('future:', err.constructor.name, err.message); }
await c.kv.compact({ revision: 4 });
try { await c.kv.range({ key: Buffer.from('/a/x'), revision: 3 }); } catch (err: any) { console.log('compacted:', err.constructor.name, err.message); }
console.log('at 4 ok', (await c.kv.range({ key: Buffer.from('/a/x'), revision: 4 })).kvs.length);
try { await c.kv.compact({ revision: 4 }); } catch (err: any) { console.log('compact again:', err.constructor.name, err.message); }
try { await c.kv.compact({ revision: 100 }); } catch (err: any) { console.log('compact future:', err.constructor.name, err.message); }
// watch from compacted
const w = c.watch().prefix('/a/').startRevision(2).withPreviousKV().watcher();
w.on('connected', (r) => console.log('connected', JSON.stringify(r)));
w.on('data', (r) => console.log('data', JSON.stringify(r)));
w.on('error', (err) => console.log('watch error', err.constructor.name, JSON.stringify(err.message)));
await new Promise((r) => setTimeout(r, 500));
const w2 = c.watch().prefix('/a/').startRevision(4).withPreviousKV().watcher();
w2.on('data', (r) => console.log('data2', JSON.stringify(r)));
w2.on('error', (err) => console.log('watch2 error', err.constructor.name, JSON.stringify(err.message)));
await new Promise((r) => setTimeout(r, 500));
await w2.cancel();
c.close();
await e.stop();
const t1 = Date.now();
const cl = await startEtcdCluster(3);
console.log('cluster up', cl.endpoints, Date.now() - t1);
await cl.stop();
