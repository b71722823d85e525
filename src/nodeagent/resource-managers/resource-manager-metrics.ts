// The resource managers' metrics on the agent's /metrics, named as the kubelet's with svc's prefix:
// pinning requests and errors of the CPU and memory managers, admissions and refusals of the
// topology manager, the shared pool's size and the CPUs held exclusively. Read at scrape time.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ResourceManagers } from './resource-managers.js';

export function registerResourceManagerMetrics(managers: ResourceManagers, registry: Registry): void {
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  counter('nodeagent_cpu_manager_pinning_requests_total', 'Exclusive CPU allocations the CPU manager was asked for.', () => managers.cpu.pinning.requests);
  counter('nodeagent_cpu_manager_pinning_errors_total', 'Exclusive CPU allocations the CPU manager could not make.', () => managers.cpu.pinning.errors);
  counter('nodeagent_memory_manager_pinning_requests_total', 'NUMA memory allocations the memory manager was asked for.', () => managers.memory.pinning.requests);
  counter('nodeagent_memory_manager_pinning_errors_total', 'NUMA memory allocations the memory manager could not make.', () => managers.memory.pinning.errors);
  counter('nodeagent_topology_manager_admission_requests_total', 'Pods the topology manager was asked to admit.', () => managers.topology.admissions.requests);
  counter('nodeagent_topology_manager_admission_errors_total', 'Pods the topology manager (or a manager allocating under it) refused.', () => managers.topology.admissions.errors);
  gauge('nodeagent_cpu_manager_shared_pool_size_millicores', 'The shared pool: CPUs every container without its own runs on, in millicores (every CPU under policy none).', () =>
    managers.cpu.policy === 'static' ? managers.cpu.sharedPool().length * 1000 : managers.cpu.allCpus.length * 1000,
  );
  gauge('nodeagent_cpu_manager_exclusive_cpu_allocation_count', 'CPUs held by containers for themselves.', () => managers.cpu.exclusiveCpus().length);
}
