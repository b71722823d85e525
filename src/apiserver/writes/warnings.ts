import type { FastifyReply } from 'fastify';

/**
 * The `Warning` response header (RFC 7234 form, as Kubernetes writes it): one `299 - "<text>"`
 * line per warning, text quoted with `"` and `\` escaped, repeated warnings sent once.
 */
const warnings = new WeakMap<FastifyReply, string[]>();

export function addWarnings(reply: FastifyReply, texts: readonly string[]): void {
  if (texts.length === 0) return;
  const list = warnings.get(reply) ?? [];
  for (const text of texts) {
    const line = `299 - "${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    if (!list.includes(line)) list.push(line);
  }
  warnings.set(reply, list);
  reply.header('warning', list);
}

/** The warning lines a reply carries so far. */
export const warningsOf = (reply: FastifyReply): readonly string[] => warnings.get(reply) ?? [];
