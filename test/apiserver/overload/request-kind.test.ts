import { describe, expect, it } from 'vitest';
import { requestKindOf } from '../../../src/apiserver/request-kind.js';

describe('requestKindOf', () => {
  it('counts watches and the streaming subresources as long-running', () => {
    expect(requestKindOf('GET', '/api/v1/namespaces/a/pods', { watch: 'true' })).toBe('longRunning');
    expect(requestKindOf('GET', '/apis/apps/v1/deployments', { watch: '1' })).toBe('longRunning');
    expect(requestKindOf('GET', '/api/v1/namespaces/a/pods/p/log', {})).toBe('longRunning');
    expect(requestKindOf('POST', '/api/v1/namespaces/a/pods/p/exec', {})).toBe('longRunning');
    expect(requestKindOf('GET', '/api/v1/namespaces/a/pods/p/attach', {})).toBe('longRunning');
    expect(requestKindOf('POST', '/api/v1/namespaces/a/pods/p/portforward', {})).toBe('longRunning');
    expect(requestKindOf('GET', '/api/v1/nodes/n1/proxy/stats/summary', {})).toBe('longRunning');
    expect(requestKindOf('GET', '/api/v1/namespaces/a/services/s/proxy', {})).toBe('longRunning');
  });

  it('splits the rest by method, whatever the objects are named', () => {
    expect(requestKindOf('GET', '/api/v1/namespaces/a/pods', { watch: 'false' })).toBe('readOnly');
    expect(requestKindOf('GET', '/api/v1/namespaces/a/configmaps/log', {})).toBe('readOnly');
    expect(requestKindOf('HEAD', '/api/v1/namespaces/a/pods/p', {})).toBe('readOnly');
    expect(requestKindOf('GET', '/healthz', {})).toBe('readOnly');
    expect(requestKindOf('POST', '/api/v1/namespaces/a/pods', {})).toBe('mutating');
    expect(requestKindOf('PATCH', '/api/v1/namespaces/a/pods/p/status', {})).toBe('mutating');
    expect(requestKindOf('DELETE', '/api/v1/namespaces/a/pods', {})).toBe('mutating');
    expect(requestKindOf('POST', '/api/v1/namespaces/a/pods', { watch: 'true' })).toBe('mutating');
  });
});
