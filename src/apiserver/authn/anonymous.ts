/**
 * Whether `--anonymous-auth` takes effect. Kubernetes' default is true, with a rule this keeps:
 * anonymous requests are never combined with an AlwaysAllow authorizer, which would hand every
 * unauthenticated caller the whole API. kube-apiserver resets the flag to false with a warning in
 * that case; so does svc: with AlwaysAllow in the chain, requests without credentials are a 401
 * whatever the flag says. Under RBAC they are system:anonymous and RBAC decides (the default policy
 * lets them read /version only).
 */
export function anonymousAllowed(flag: boolean, authorizationModes: readonly string[]): { allowed: boolean; warning?: string } {
  if (!flag) return { allowed: false };
  if (authorizationModes.length === 0 || authorizationModes.includes('AlwaysAllow')) {
    return {
      allowed: false,
      warning: 'AnonymousAuth is not allowed with the AlwaysAllow authorizer: requests without credentials are answered 401. Use an authorizer such as RBAC to allow anonymous requests.',
    };
  }
  return { allowed: true };
}
