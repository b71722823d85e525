import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * Reads `--client-ca-file`: a PEM bundle of CA certificates. Checked at start so that a typo is a
 * clear error rather than a server that silently refuses every client certificate.
 */
export async function readClientCa(path: string, flagName = '--client-ca-file'): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`${flagName} ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => m[0]);
  if (blocks.length === 0) throw new Error(`${flagName} ${path}: no PEM certificate found`);
  for (const pem of blocks) {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(pem);
    } catch (error) {
      throw new Error(`${flagName} ${path}: a certificate cannot be read (${(error as Error).message})`);
    }
    if (!cert.ca) throw new Error(`${flagName} ${path}: ${cert.subject.replace(/\n/g, ', ')} is not a CA certificate`);
  }
  return blocks.join('\n') + '\n';
}
