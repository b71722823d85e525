/**
 * The health endpoints' checks and their text, as Kubernetes components answer them:
 * `ok` (200) when every check passes; `[-]name failed: reason` lines and 500 when one fails;
 * `?verbose` lists every check; `?exclude=name` skips one; `/<endpoint>/<name>` runs one.
 */

/** Returns undefined when healthy, else why not. */
export type HealthCheck = () => string | undefined;

export interface HealthAnswer {
  readonly status: number;
  readonly body: string;
}

export function runChecks(endpoint: string, checks: ReadonlyMap<string, HealthCheck>, subpath: string, query: URLSearchParams): HealthAnswer {
  if (subpath !== '') {
    const check = checks.get(subpath);
    if (check === undefined) return { status: 404, body: `no such check: ${subpath}\n` };
    const problem = check();
    return problem === undefined ? { status: 200, body: 'ok' } : { status: 500, body: `internal server error: ${problem}\n` };
  }
  const excluded = new Set(query.getAll('exclude'));
  const verbose = query.has('verbose');
  const lines: string[] = [];
  let failed = false;
  for (const [name, check] of checks) {
    if (excluded.has(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const problem = check();
    if (problem === undefined) lines.push(`[+]${name} ok`);
    else {
      failed = true;
      lines.push(`[-]${name} failed: ${problem}`);
    }
  }
  if (failed) return { status: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n` };
  return { status: 200, body: verbose ? `${lines.join('\n')}\n${endpoint} check passed\n` : 'ok' };
}
