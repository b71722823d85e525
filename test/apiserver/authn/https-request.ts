import { request } from 'node:https';

export interface HttpsResult {
  status: number;
  body: any;
}

export interface HttpsOptions {
  ca: string | undefined;
  cert?: string;
  key?: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string | string[]>;
}

/** One request on a fresh TLS connection (no agent: each test's certificate is its own handshake). */
export function httpsCall(method: string, url: string, options: HttpsOptions): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        method,
        agent: false,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.cert !== undefined ? { cert: options.cert, key: options.key } : {}),
        headers: {
          ...options.headers,
          ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
