// The Client has no throttle hook yet (the controller manager's issue adds one): the bench passes
// every request of the controller's Client through the rateLimit operator, as the manager will
// with --svc-api-qps / --svc-api-burst. Watches (transport.stream) are not throttled.
import { Subject } from 'rxjs';
import type { Client, HttpRequest } from '../../src/client/index.js';
import { rateLimit } from '../../operators/index.js';

export function throttle(client: Client, limits: { qps: number; burst: number }): { requests(): number; stop(): void } {
  const transport = client.transport;
  const send = transport.request.bind(transport);
  const queue = new Subject<() => void>();
  const subscription = queue.pipe(rateLimit(limits)).subscribe((start) => start());
  let count = 0;
  transport.request = (req: HttpRequest) =>
    new Promise((resolve, reject) => {
      count++;
      queue.next(() => void send(req).then(resolve, reject));
    });
  return { requests: () => count, stop: () => subscription.unsubscribe() };
}
