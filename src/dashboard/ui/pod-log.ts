import { ApiError, withQuery } from './api.js';
import { el } from './dom.js';

/** Lines kept in the page; older ones are dropped as new ones come (a chatty pod must not grow the page). */
const KEPT_LINES = 5_000;

/**
 * A pod's log followed live: the API server's `pods/log` with `follow=true` (through the
 * dashboard's read-only proxy), read as a stream and appended as it comes, the last
 * `KEPT_LINES` lines kept. Ends when `signal` aborts (the panel closed) or the container does.
 */
export function followLog(namespace: string, pod: string, container: string, signal: AbortSignal): HTMLElement {
  const pre = el('pre', { class: 'log', id: 'pod-log', 'data-state': 'opening' });
  const status = el('div', { class: 'log-state', id: 'pod-log-state' }, `following ${container}…`);
  const element = el('div', {}, status, pre);
  const path = withQuery(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`, { follow: 'true', tailLines: '1000', container });
  void (async () => {
    try {
      const response = await fetch(path, { signal, headers: { accept: '*/*' } });
      if (!response.ok || response.body === null) {
        const text = await response.text();
        let message = text;
        try {
          message = (JSON.parse(text) as { message?: string }).message ?? text;
        } catch {
          // not a Status
        }
        throw new ApiError(response.status, message);
      }
      pre.dataset['state'] = 'following';
      status.textContent = `following ${container}`;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let lines = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pre.append(value);
        lines += value.split('\n').length - 1;
        // Drop whole text nodes from the front until the kept lines fit.
        while (lines > KEPT_LINES && pre.firstChild !== null) {
          lines -= (pre.firstChild.textContent ?? '').split('\n').length - 1;
          pre.firstChild.remove();
        }
        const scroller = pre.closest('.object-main');
        if (scroller !== null) scroller.scrollTop = scroller.scrollHeight;
      }
      pre.dataset['state'] = 'ended';
      status.textContent = `${container}: the log ended (the container stopped)`;
    } catch (error) {
      if (signal.aborted) return;
      pre.dataset['state'] = 'failed';
      status.textContent = `${container}: ${error instanceof Error ? error.message : String(error)}`;
    }
  })();
  return element;
}
