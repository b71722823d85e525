/**
 * How a controller replay's writes are answered (src/bench/corpus-answers.ts): as a server would,
 * from the corpus's latest state, without storing anything.
 */
import { describe, expect, it } from 'vitest';
import { CorpusAnswers } from '../../src/bench/corpus-answers.js';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '5', labels: { x: '1' } }, data: { k: 'v' } };
const body = (answer: ReturnType<CorpusAnswers['answer']>): Record<string, unknown> => JSON.parse(answer!.body!.toString('utf8')) as Record<string, unknown>;
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('CorpusAnswers', () => {
  it('answers a create with its object named from generateName, and the same names every time', () => {
    const names = [new CorpusAnswers(), new CorpusAnswers()].map((answers) => {
      const answer = answers.answer({ method: 'POST', path: '/api/v1/namespaces/ns/pods', request: json({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-' } }), requestType: 'application/json' });
      expect(answer?.code).toBe(201);
      const meta = body(answer)['metadata'] as Record<string, string>;
      expect(meta['name']).toMatch(/^web-/);
      expect(meta['uid']).toBeTruthy();
      return meta['name'];
    });
    expect(names[0]).toBe(names[1]);
  });

  it('answers a merge patch with the corpus object patched, a status patch too', () => {
    const answers = new CorpusAnswers();
    answers.track('configmaps', cm, false);
    for (const path of ['/api/v1/namespaces/ns/configmaps/a', '/api/v1/namespaces/ns/configmaps/a/status?fieldManager=x']) {
      const answer = answers.answer({ method: 'PATCH', path, request: json({ metadata: { labels: { y: '2' } } }), requestType: 'application/merge-patch+json' });
      expect(answer?.code).toBe(200);
      expect((body(answer)['metadata'] as { labels: unknown }).labels).toEqual({ x: '1', y: '2' });
      expect(body(answer)['data']).toEqual({ k: 'v' });
    }
  });

  it('answers a patch or delete of what the corpus does not have (or no longer has) with a 404 Status', () => {
    const answers = new CorpusAnswers();
    answers.track('configmaps', cm, false);
    answers.track('configmaps', cm, true);
    for (const method of ['PATCH', 'DELETE']) {
      const answer = answers.answer({ method, path: '/api/v1/namespaces/ns/configmaps/a', request: json({}), requestType: 'application/merge-patch+json' });
      expect(answer?.code).toBe(404);
      expect(body(answer)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    }
  });

  it('answers a delete of a tracked object with a Success Status, and a group path by its plural', () => {
    const answers = new CorpusAnswers();
    answers.track('replicasets.apps', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r', namespace: 'ns' } }, false);
    const answer = answers.answer({ method: 'DELETE', path: '/apis/apps/v1/namespaces/ns/replicasets/r' });
    expect(answer?.code).toBe(200);
    expect(body(answer)).toMatchObject({ kind: 'Status', status: 'Success' });
  });
});
