import { RE2JS } from '@bufbuild/re2';

/**
 * Regular expressions as CEL (and Kubernetes) mean them: RE2, linear in the input. The evaluator's
 * own `matches` uses JavaScript's backtracking engine, on which a policy's pattern and a user's
 * string could hold the API server's event loop for minutes (`(a+)+$`); svc's compile step sends
 * every `matches` here instead (compile.ts).
 */

const MAX_CACHED = 256;
const compiled = new Map<string, RE2JS>();

function compile(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether `pattern` matches anywhere in `input` (CEL's `matches`); a pattern RE2 refuses throws. */
export function re2Matches(input: string, pattern: string): boolean {
  return compile(pattern).test(input);
}

/** Why RE2 refuses a pattern, or undefined. */
export function re2PatternError(pattern: string): string | undefined {
  try {
    compile(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
