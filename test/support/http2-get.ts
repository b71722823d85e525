// One GET over an HTTP/2 session: the body as text, and the protocol ALPN chose, for tests that
// check a server still speaks HTTP/2.
import { connect, type SecureClientSessionOptions } from 'node:http2';

export async function http2Get(url: string, path: string, options: SecureClientSessionOptions): Promise<{ body: string; alpnProtocol: string | false | undefined }> {
  const session = connect(url, options);
  try {
    const body = await new Promise<string>((resolve, reject) => {
      const stream = session.request({ ':path': path });
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (text += chunk));
      stream.on('end', () => resolve(text));
      stream.on('error', reject);
    });
    return { body, alpnProtocol: session.alpnProtocol };
  } finally {
    session.close();
  }
}
