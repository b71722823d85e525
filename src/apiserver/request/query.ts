import { booleanParam } from '../../api/index.js';
import type { HandlerContext } from './context.js';

/** A query parameter as one string (the last value wins when it is repeated). */
export function queryParam(ctx: HandlerContext, name: string): string | undefined {
  const value = (ctx.request.query as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return value === undefined ? undefined : String(value);
}

/** `pretty=true`: indented JSON. */
export function isPretty(ctx: HandlerContext): boolean {
  return booleanParam('pretty', queryParam(ctx, 'pretty'), false) === true;
}
