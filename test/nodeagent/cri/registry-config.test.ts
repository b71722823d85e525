// registries.yaml: what is accepted and refused (each refusal a 400 naming the field), the
// hosts.toml files and CRI auth it becomes, and the agent's repository rewrites.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../../src/api/index.js';
import {
  containerdConfig,
  defaultEndpoint,
  parseImageName,
  parseRegistryConfig,
  readRegistryConfig,
  registryAuths,
  registryHostsFiles,
  rewriteImage,
  writeRegistryHosts,
} from '../../../src/nodeagent/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'svc-registries-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function refusal(text: string): { code: number; message: string } {
  try {
    parseRegistryConfig(text, 'registries.yaml');
  } catch (error) {
    if (isStatusError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('a registries.yaml', () => {
  it('takes k3s\'s shape: mirrors with endpoints and rewrites, configs with auth and tls; empty is fine', () => {
    const config = parseRegistryConfig(`
mirrors:
  docker.io:
    endpoint: ["http://127.0.0.1:5000", "https://mirror.example.com"]
    rewrite:
      "^library/(.*)": "mirrored/$1"
  registry.example.com:5000: {}
configs:
  mirror.example.com:
    auth: { username: u, password: p }
    tls: { ca_file: /etc/ca.pem, cert_file: /etc/c.pem, key_file: /etc/k.pem }
  "127.0.0.1:5000":
    tls: { insecure_skip_verify: true }
`);
    expect(config.mirrors?.['docker.io']?.endpoint).toEqual(['http://127.0.0.1:5000', 'https://mirror.example.com']);
    expect(parseRegistryConfig('')).toEqual({});
  });

  it.each([
    ['not YAML', 'mirrors: [', /not YAML/],
    ['an unknown field', 'mirror:\n  docker.io: {}\n', /Unrecognized key/],
    ['an unknown field inside configs', 'configs:\n  r.example.com:\n    auth: { user: x }\n', /configs\.r\.example\.com\.auth/],
    ['a wildcard registry', 'mirrors:\n  "*":\n    endpoint: [http://127.0.0.1:5000]\n', /"\*" is not supported/],
    ['an endpoint of another scheme', 'mirrors:\n  docker.io:\n    endpoint: ["ftp://m.example.com"]\n', /must be http:\/\/ or https:\/\//],
    ['credentials in an endpoint', 'mirrors:\n  docker.io:\n    endpoint: ["https://u:p@m.example.com"]\n', /no query, fragment or credentials/],
    ['a rewrite that is no regular expression', 'mirrors:\n  docker.io:\n    endpoint: [http://127.0.0.1:5000]\n    rewrite: { "([": "x" }\n', /not a regular expression/],
    ['a client certificate without its key', 'configs:\n  r.example.com:\n    tls: { cert_file: /c.pem }\n', /cert_file and key_file go together/],
    ['auth without a password', 'configs:\n  r.example.com:\n    auth: { username: u }\n', /needs username and password/],
    ['a value of the wrong type', 'configs:\n  r.example.com:\n    tls: { insecure_skip_verify: "yes" }\n', /insecure_skip_verify/],
  ])('refuses %s with a 400 naming it', (_what, text, message) => {
    const { code, message: got } = refusal(text);
    expect(code).toBe(400);
    expect(got).toMatch(/^registry configuration registries\.yaml: /);
    expect(got).toMatch(message);
  });

  it('refuses a file it cannot read, naming the path', () => {
    expect(() => readRegistryConfig(join(scratch, 'absent.yaml'))).toThrow(/absent\.yaml: cannot be read \(ENOENT\)/);
  });
});

describe('containerd\'s side', () => {
  const config = parseRegistryConfig(`
mirrors:
  docker.io:
    endpoint: ["127.0.0.1:5000", "https://mirror.example.com/v2/hub"]
  ghcr.io:
    endpoint: ["https://mirror.example.com"]
configs:
  docker.io:
    auth: { username: hub, password: hubpw }
  mirror.example.com:
    tls: { ca_file: /etc/mirror-ca.pem, cert_file: /etc/c.pem, key_file: /etc/k.pem }
  "localhost:5001":
    auth: { auth: dXNlcjpwdw== }
`);

  it('is a hosts.toml per registry: mirrors in order (bare loopback hosts over plain HTTP, a path as the API root), the registry itself last', () => {
    const files = registryHostsFiles(config);
    expect([...files.keys()]).toEqual(['docker.io', 'ghcr.io', 'localhost:5001', 'mirror.example.com']);
    expect(files.get('docker.io')).toBe(
      [
        'server = "https://registry-1.docker.io"',
        '',
        '[host."http://127.0.0.1:5000"]',
        '  capabilities = ["pull", "resolve"]',
        '',
        '[host."https://mirror.example.com/v2/hub"]',
        '  capabilities = ["pull", "resolve"]',
        '  override_path = true',
        '  ca = "/etc/mirror-ca.pem"',
        '  client = [["/etc/c.pem", "/etc/k.pem"]]',
        '',
      ].join('\n'),
    );
    // A loopback registry is reached over plain HTTP; a configured registry's TLS is its server's.
    expect(files.get('localhost:5001')).toBe('server = "http://localhost:5001"\n');
    expect(files.get('mirror.example.com')).toBe('server = "https://mirror.example.com"\nca = "/etc/mirror-ca.pem"\nclient = [["/etc/c.pem", "/etc/k.pem"]]\n');
    expect(defaultEndpoint('[::1]:5000')).toBe('http://[::1]:5000');
    // A loopback registry with a TLS configuration is HTTPS, and listed as a host too (containerd
    // 1.6 downgrades a loopback server to HTTP); so is a bare loopback endpoint of a TLS host.
    const tls = parseRegistryConfig('mirrors:\n  docker.io:\n    endpoint: ["127.0.0.1:5443"]\nconfigs:\n  "127.0.0.1:5443":\n    tls: { ca_file: /ca.pem }\n');
    expect(registryHostsFiles(tls).get('127.0.0.1:5443')).toBe('server = "https://127.0.0.1:5443"\nca = "/ca.pem"\n\n[host."https://127.0.0.1:5443"]\n  capabilities = ["pull", "resolve"]\n  ca = "/ca.pem"\n');
    expect(registryHostsFiles(tls).get('docker.io')).toContain('[host."https://127.0.0.1:5443"]\n  capabilities = ["pull", "resolve"]\n  ca = "/ca.pem"\n');
  });

  it('puts credentials in the CRI plugin\'s registry.configs, Docker Hub\'s under its API host too, beside config_path', () => {
    const auths = registryAuths(config);
    expect(Object.fromEntries(auths)).toEqual({
      'docker.io': { username: 'hub', password: 'hubpw' },
      'registry-1.docker.io': { username: 'hub', password: 'hubpw' },
      'localhost:5001': { auth: 'dXNlcjpwdw==' },
    });
    const toml = containerdConfig({ root: '/r', state: '/s', address: '/a.sock', sandboxImage: 'p', snapshotter: 'native', cniConfDir: '/n', cniBinDir: '/b', registryConfigPath: '/d/certs.d', registryAuths: auths });
    expect(toml).toContain('[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "/d/certs.d"\n');
    expect(toml).toContain('[plugins."io.containerd.grpc.v1.cri".registry.configs."registry-1.docker.io".auth]\n  username = "hub"\n  password = "hubpw"\n');
    expect(toml).not.toContain('registry.mirrors');
    // Without a registry configuration the table is left out (containerd's defaults).
    expect(containerdConfig({ root: '/r', state: '/s', address: '/a.sock', sandboxImage: 'p', snapshotter: 'native', cniConfDir: '/n', cniBinDir: '/b' })).not.toContain('.registry]');
  });

  it('writes the files into a directory: replacing svc\'s own, or beside an operator\'s other registries', () => {
    const dir = join(scratch, 'certs.d');
    mkdirSync(join(dir, 'other.example.com'), { recursive: true });
    writeFileSync(join(dir, 'other.example.com', 'hosts.toml'), 'server = "https://other.example.com"\n');
    writeRegistryHosts(dir, config, { replace: false });
    expect(readFileSync(join(dir, 'docker.io', 'hosts.toml'), 'utf8')).toBe(registryHostsFiles(config).get('docker.io'));
    expect(existsSync(join(dir, 'other.example.com', 'hosts.toml'))).toBe(true);
    writeRegistryHosts(dir, config);
    expect(existsSync(join(dir, 'other.example.com'))).toBe(false);
    expect(existsSync(join(dir, 'ghcr.io', 'hosts.toml'))).toBe(true);
  });
});

describe('rewrites', () => {
  const config = parseRegistryConfig(`
mirrors:
  docker.io:
    endpoint: ["http://127.0.0.1:5000"]
    rewrite:
      "^rancher/(.*)": "mirrorproject/rancher-images/$1"
      "^library/(.*)": "hub/$1"
  quay.io:
    rewrite: { "^(.*)$": "never/$1" }
`);
  const rewritten = (image: string) => rewriteImage(parseImageName(image), config)?.reference;

  it('rewrite the repository by the first pattern that matches, keeping the tag or digest', () => {
    expect(rewritten('rancher/coredns-coredns:1.6.3')).toBe('docker.io/mirrorproject/rancher-images/coredns-coredns:1.6.3');
    expect(rewritten('busybox')).toBe('docker.io/hub/busybox:latest');
    expect(rewritten(`busybox@sha256:${'a'.repeat(64)}`)).toBe(`docker.io/hub/busybox@sha256:${'a'.repeat(64)}`);
  });

  it('leave names no pattern matches, other registries, and mirrors without endpoints alone', () => {
    expect(rewritten('someone/app:1')).toBeUndefined();
    expect(rewritten('ghcr.io/rancher/app:1')).toBeUndefined();
    expect(rewritten('quay.io/team/app:1')).toBeUndefined();
    expect(rewriteImage(parseImageName('rancher/x'), undefined)).toBeUndefined();
  });
});
