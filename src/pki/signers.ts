import type { CertificateRequestInfo } from './certificate-requests.js';

/**
 * The cluster's four signers (docs/controller-manager.md#csrsigning): their names, the upstream
 * names they also answer to, the usages each allows and what each requires of a request's
 * subject — Kubernetes' rules, so that a request refused there is refused here for the same reason.
 */

export const NODE_CLIENT_SIGNER = 'svc.io/apiserver-client-nodeagent';
export const NODE_SERVING_SIGNER = 'svc.io/nodeagent-serving';
export const APISERVER_CLIENT_SIGNER = 'svc.io/apiserver-client';
export const LEGACY_UNKNOWN_SIGNER = 'svc.io/legacy-unknown';

export type SignerName = typeof APISERVER_CLIENT_SIGNER | typeof NODE_CLIENT_SIGNER | typeof NODE_SERVING_SIGNER | typeof LEGACY_UNKNOWN_SIGNER;

/** Other names of the same signers: Kubernetes' own (manifests written for upstream clusters keep working), and those in svc's domain. */
const UPSTREAM_NAMES: Readonly<Record<string, SignerName>> = {
  'kubernetes.io/kube-apiserver-client': APISERVER_CLIENT_SIGNER,
  'kubernetes.io/kube-apiserver-client-kubelet': NODE_CLIENT_SIGNER,
  'kubernetes.io/kubelet-serving': NODE_SERVING_SIGNER,
  'kubernetes.io/legacy-unknown': LEGACY_UNKNOWN_SIGNER,
  // Kubernetes' names in svc's domain, which earlier svc versions and the issue tracker used.
  'svc.io/kube-apiserver-client': APISERVER_CLIENT_SIGNER,
  'svc.io/kube-apiserver-client-kubelet': NODE_CLIENT_SIGNER,
  'svc.io/kubelet-serving': NODE_SERVING_SIGNER,
};

export const SIGNER_NAMES: readonly SignerName[] = [APISERVER_CLIENT_SIGNER, NODE_CLIENT_SIGNER, NODE_SERVING_SIGNER, LEGACY_UNKNOWN_SIGNER];

/** The built-in signer `name` is (its svc name or its upstream one), or undefined. */
export function builtinSigner(name: string): SignerName | undefined {
  return (SIGNER_NAMES as readonly string[]).includes(name) ? (name as SignerName) : UPSTREAM_NAMES[name];
}

/** Domains no signer but the built-in ones may use: a name there that is none of them names nothing. */
export function isReservedSignerName(name: string): boolean {
  return name.startsWith('svc.io/') || name.startsWith('kubernetes.io/');
}

/** Every usage a request may name (Kubernetes' KeyUsage values). */
export const KNOWN_USAGES: readonly string[] = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
];

interface UsageRule {
  readonly allowed: readonly string[];
  readonly required: string;
}

const USAGES: Readonly<Record<SignerName, UsageRule | undefined>> = {
  [APISERVER_CLIENT_SIGNER]: { allowed: ['digital signature', 'key encipherment', 'client auth'], required: 'client auth' },
  [NODE_CLIENT_SIGNER]: { allowed: ['digital signature', 'key encipherment', 'client auth'], required: 'client auth' },
  [NODE_SERVING_SIGNER]: { allowed: ['digital signature', 'key encipherment', 'server auth'], required: 'server auth' },
  // The legacy signer signs what it is asked (it exists for clusters that relied on that).
  [LEGACY_UNKNOWN_SIGNER]: undefined,
};

/** The usages `signer` allows, or undefined when it allows any. */
export const allowedUsages = (signer: SignerName): readonly string[] | undefined => USAGES[signer]?.allowed;

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

function nodeSubjectProblem(info: CertificateRequestInfo): string | undefined {
  if (info.organizations.length !== 1 || info.organizations[0] !== NODES_GROUP) return `subject organization must be exactly ["${NODES_GROUP}"]`;
  if (!info.commonName.startsWith(NODE_USER_PREFIX) || info.commonName.length === NODE_USER_PREFIX.length) return `subject common name must be "${NODE_USER_PREFIX}<node name>"`;
  return undefined;
}

/**
 * Why `signer` must not sign this request with these usages, or undefined when it may: the
 * usages it allows (and the one it requires), and the subject its certificates are for.
 */
export function signerProblem(signer: SignerName, info: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  const unknown = usages.filter((u) => !KNOWN_USAGES.includes(u));
  if (unknown.length > 0) return `unknown usages: ${unknown.join(', ')}`;
  const rule = USAGES[signer];
  if (rule) {
    const disallowed = usages.filter((u) => !rule.allowed.includes(u));
    if (disallowed.length > 0) return `usages not allowed by signer ${signer}: ${disallowed.join(', ')} (allowed: ${rule.allowed.join(', ')})`;
    if (!usages.includes(rule.required)) return `signer ${signer} requires the usage "${rule.required}"`;
  }
  if (signer === NODE_CLIENT_SIGNER) {
    const subject = nodeSubjectProblem(info);
    if (subject) return subject;
    if (info.dnsNames.length + info.ipAddresses.length + info.emailAddresses.length + info.uris.length > 0) return 'a node client certificate names no DNS names, IP addresses, emails or URIs';
  }
  if (signer === NODE_SERVING_SIGNER) {
    const subject = nodeSubjectProblem(info);
    if (subject) return subject;
    if (info.dnsNames.length + info.ipAddresses.length === 0) return 'a node serving certificate must name at least one DNS name or IP address';
    if (info.emailAddresses.length + info.uris.length > 0) return 'a node serving certificate names no emails or URIs';
  }
  return undefined;
}
