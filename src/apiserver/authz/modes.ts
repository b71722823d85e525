import type { Attributes } from './attributes.js';
import { ALLOW, NO_OPINION, type Authorizer, type Decision } from './decision.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import type { RbacState } from './rbac-state.js';

/** `--authorization-mode` values, evaluated in the order given. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** The group whose members may do anything, whatever RBAC says (Kubernetes' system:masters). */
export const PRIVILEGED_GROUP = 'system:masters';

const ALWAYS_ALLOW: Authorizer = { authorize: () => ALLOW };
// Kubernetes' AlwaysDeny has no opinion: with nothing after it, the request is refused.
const ALWAYS_DENY: Authorizer = { authorize: () => NO_OPINION };

/**
 * The authorizers of the modes, chained: the first that allows or denies decides; when all have
 * no opinion the request is refused. With RBAC among them, members of system:masters are allowed
 * before anything else is asked (as kube-apiserver does), so the cluster admin can never lock
 * itself out by editing a binding.
 */
export function chainAuthorizers(modes: readonly AuthorizationMode[], rbac: RbacState | undefined): Authorizer {
  const chain: Authorizer[] = [];
  if (modes.includes('RBAC')) chain.push(privilegedGroup);
  for (const mode of modes) {
    if (mode === 'AlwaysAllow') chain.push(ALWAYS_ALLOW);
    else if (mode === 'AlwaysDeny') chain.push(ALWAYS_DENY);
    else {
      if (!rbac) throw new Error('the RBAC authorization mode needs the RBAC state');
      chain.push(new RbacAuthorizer(rbac));
    }
  }
  if (chain.length === 1) return chain[0]!;
  return {
    authorize(a: Attributes): Decision {
      // Allocated only when an authorizer explains its no-opinion: an allowed request allocates nothing here.
      let reasons: string[] | undefined;
      for (let i = 0; i < chain.length; i++) {
        const d = chain[i]!.authorize(a);
        if (d.decision !== 'noOpinion') return d;
        if (d.reason) (reasons ??= []).push(d.reason);
      }
      return reasons ? { decision: 'noOpinion', reason: reasons.join('; ') } : NO_OPINION;
    },
  };
}

const privilegedGroup: Authorizer = {
  authorize: (a) => (a.user.groups.includes(PRIVILEGED_GROUP) ? ALLOW : NO_OPINION),
};

/** Parses `AlwaysAllow`, `RBAC`, or a comma list such as `RBAC,AlwaysDeny`; an Error names what is wrong. */
export function parseAuthorizationModes(text: string): AuthorizationMode[] {
  const modes = text.split(',').map((m) => m.trim());
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
      throw new Error(`unknown authorization mode ${JSON.stringify(mode)}: use ${AUTHORIZATION_MODES.join(', ')}, or a comma-separated list of them`);
    }
  }
  if (new Set(modes).size !== modes.length) throw new Error(`authorization mode ${JSON.stringify(text)} names a mode twice`);
  return modes as AuthorizationMode[];
}
