/**
 * The `ws` package, loaded by the first stream that needs it: most agents never serve exec,
 * attach or port-forward, and its modules stay resident once loaded (~1.5 MB with 100 pods).
 */
let loading: Promise<typeof import('ws')> | undefined;

export const loadWs = (): Promise<typeof import('ws')> => (loading ??= import('ws'));
