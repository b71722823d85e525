import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer, type KubectlServer } from '../support/kubectl.js';

// Issue #21: a custom resource with `subresources: {status: {}}` took writes through `/status`,
// answered 200 and a new resourceVersion, and kept the stored status. As Kubernetes serves custom
// resources, `/status` changes the status only, and the object endpoint ignores status.

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: {type: integer}
            status:
              type: object
              properties:
                readyReplicas: {type: integer}
`;

const WIDGET = `
apiVersion: example.com/v1
kind: Widget
metadata: {name: a}
spec: {replicas: 2}
status: {readyReplicas: 9}
`;

interface Widget {
  metadata: { resourceVersion: string; generation: number; labels?: Record<string, string> };
  spec: { replicas: number };
  status?: { readyReplicas?: number };
}

async function widget(k: KubectlServer, name = 'a'): Promise<Widget> {
  const got = await kubectl(k.config, ['get', 'widget', name, '-o', 'json']);
  expect(got.stderr).toBe('');
  return JSON.parse(got.stdout) as Widget;
}

async function ok(k: KubectlServer, args: string[], stdin?: string): Promise<string> {
  const res = await kubectl(k.config, args, stdin);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return res.stdout;
}

for (const storage of ['memory', 'sqlite', 'etcd'] as const) {
  describe(`kubectl and a custom resource's status subresource (${storage} store)`, () => {
    const k = useKubectlServer(`svc-kubectl-cr-status-${storage}-`, storage);

    it('serves the Widget CRD', async () => {
      await ok(k, ['apply', '-f', '-'], CRD);
      const waited = await kubectl(k.config, ['wait', '--for=condition=Established', '--timeout=30s', 'customresourcedefinitions/widgets.example.com']);
      expect(waited.code, waited.stderr).toBe(0);
    });

    it('writes status through --subresource=status with every patch type, PUT and apply; the object endpoint ignores status', async () => {
      await ok(k, ['create', '-f', '-'], WIDGET);
      const created = await widget(k);
      expect(created.status).toBeUndefined(); // a create drops status
      const generation = created.metadata.generation;

      // merge patch
      await ok(k, ['patch', 'widget', 'a', '--subresource=status', '--type=merge', '-p', '{"status":{"readyReplicas":3},"spec":{"replicas":7}}']);
      let now = await widget(k);
      expect(now.status).toEqual({ readyReplicas: 3 });
      expect(now.spec).toEqual({ replicas: 2 }); // /status writes nothing else
      expect(now.metadata.generation).toBe(generation);

      // JSON patch
      await ok(k, ['patch', 'widget', 'a', '--subresource=status', '--type=json', '-p', '[{"op":"replace","path":"/status/readyReplicas","value":4}]']);
      expect((await widget(k)).status).toEqual({ readyReplicas: 4 });

      // PUT (kubectl replace), with a spec change and a label that /status must not take
      now = await widget(k);
      const body = { ...now, metadata: { ...now.metadata, labels: { via: 'status' } }, spec: { replicas: 8 }, status: { readyReplicas: 5 } };
      await ok(k, ['replace', '--subresource=status', '-f', '-'], JSON.stringify(body));
      now = await widget(k);
      expect(now.status).toEqual({ readyReplicas: 5 });
      expect(now.spec).toEqual({ replicas: 2 });
      expect(now.metadata.labels).toBeUndefined();

      // server-side apply (taking readyReplicas over from the kubectl managers that wrote it before)
      const config = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nstatus: {readyReplicas: 6}\n';
      await ok(k, ['apply', '--server-side', '--subresource=status', '--field-manager=widget-status', '--force-conflicts', '-f', '-'], config);
      expect((await widget(k)).status).toEqual({ readyReplicas: 6 });

      // The object endpoint: spec changes go through, status stays as stored.
      await ok(k, ['patch', 'widget', 'a', '--type=merge', '-p', '{"spec":{"replicas":3},"status":{"readyReplicas":0}}']);
      now = await widget(k);
      expect(now.spec).toEqual({ replicas: 3 });
      expect(now.status).toEqual({ readyReplicas: 6 });
      expect(now.metadata.generation).toBe(generation + 1);
      await ok(k, ['replace', '-f', '-'], JSON.stringify({ ...now, status: { readyReplicas: 1 } }));
      expect((await widget(k)).status).toEqual({ readyReplicas: 6 });
    });

    it('answers a write that changes nothing with the stored object: same resourceVersion (merge patch, apply)', async () => {
      await ok(k, ['create', '-f', '-'], WIDGET.replace('name: a', 'name: b'));
      const patch = ['patch', 'widget', 'b', '--subresource=status', '--type=merge', '-p', '{"status":{"readyReplicas":11}}'];
      await ok(k, patch);
      const first = (await widget(k, 'b')).metadata.resourceVersion;
      await ok(k, patch);
      await ok(k, patch);
      expect((await widget(k, 'b')).metadata.resourceVersion).toBe(first);

      const config = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: b}\nspec: {replicas: 4}\n';
      const apply = ['apply', '--server-side', '--field-manager=widget-spec', '--force-conflicts', '-f', '-'];
      await ok(k, apply, config);
      const applied = (await widget(k, 'b')).metadata.resourceVersion;
      await ok(k, apply, config);
      await ok(k, apply, config);
      expect((await widget(k, 'b')).metadata.resourceVersion).toBe(applied);
    });
  });
}
