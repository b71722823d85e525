import { Observable } from 'rxjs';
import type { HttpRequest, Transport } from './transport.js';

/** A line longer than this is emitted in pieces of this size: the buffer stays bounded whatever the log holds. */
export const MAX_LINE_CHARS = 1 << 20;

/**
 * The lines of a streamed text response (a pod's log), without their `\n`; a last line without
 * one is emitted when the stream ends. Cold: each subscription sends the request; unsubscribing
 * aborts it (the connection closes, so the server stops following). Errors with the StatusError
 * of a non-2xx answer.
 */
export function lines$(transport: Transport, request: Omit<HttpRequest, 'signal'>): Observable<string> {
  return new Observable<string>((subscriber) => {
    const abort = new AbortController();
    void (async () => {
      const res = await transport.stream({ ...request, accept: '*/*', signal: abort.signal });
      const decoder = new TextDecoder();
      let rest = '';
      for await (const chunk of res.body) {
        rest += decoder.decode(chunk, { stream: true });
        let start = 0;
        for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n', start)) {
          subscriber.next(rest.slice(start, nl));
          start = nl + 1;
          if (abort.signal.aborted) return;
        }
        rest = rest.slice(start);
        while (rest.length > MAX_LINE_CHARS) {
          subscriber.next(rest.slice(0, MAX_LINE_CHARS));
          rest = rest.slice(MAX_LINE_CHARS);
        }
      }
      rest += decoder.decode();
      if (rest !== '') subscriber.next(rest);
      subscriber.complete();
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) subscriber.error(error);
    });
    return () => abort.abort();
  });
}
