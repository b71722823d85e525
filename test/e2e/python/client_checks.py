"""Checks svc-apiserver with the Kubernetes Python client (Debian's python3-kubernetes).

Usage: client_checks.py <svcconfig> <step>...
Each step prints one JSON line {"step": ..., ...facts}; a failure raises (non-zero exit, the
traceback on stderr). The test (python-client.test.ts) asserts on the facts.
"""
import json
import sys
import tempfile

from kubernetes import client, config, utils, watch
from kubernetes.client.rest import ApiException


def report(step, **facts):
    print(json.dumps({"step": step, **facts}), flush=True)


def service_crud(api_client):
    v1 = client.CoreV1Api(api_client)
    body = client.V1Service(
        metadata=client.V1ObjectMeta(name="py-svc", labels={"from": "python"}),
        spec=client.V1ServiceSpec(selector={"app": "py"}, ports=[client.V1ServicePort(port=80)]),
    )
    created = v1.create_namespaced_service("default", body)
    read = v1.read_namespaced_service("py-svc", "default")
    listed = v1.list_namespaced_service("default", label_selector="from=python")
    try:
        v1.create_namespaced_service("default", body)
        duplicate = None
    except ApiException as error:
        duplicate = {"status": error.status, "body": error.body}
    report(
        "service",
        created_load_balancer=created.status.load_balancer is not None if created.status else False,
        read_load_balancer=read.status.load_balancer is not None if read.status else False,
        type=read.spec.type,
        session_affinity=read.spec.session_affinity,
        protocol=read.spec.ports[0].protocol,
        target_port=read.spec.ports[0].target_port,
        creation_timestamp=read.metadata.creation_timestamp is not None,
        listed=[s.metadata.name for s in listed.items],
        duplicate=duplicate,
    )


def node_read(api_client):
    v1 = client.CoreV1Api(api_client)
    v1.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="py-node")))
    node = v1.read_node("py-node")
    nodes = v1.list_node()
    report(
        "node",
        kubelet_port=node.status.daemon_endpoints.kubelet_endpoint.port,
        system_uuid=node.status.node_info.system_uuid,
        listed=[n.metadata.name for n in nodes.items],
    )


def from_yaml(api_client):
    manifest = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: py-deploy, namespace: default}
spec:
  selector: {matchLabels: {app: py}}
  template:
    metadata: {labels: {app: py}}
    spec:
      containers: [{name: web, image: nginx}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: py-config, namespace: default}
data: {a: "1"}
"""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        f.write(manifest)
        f.flush()
        utils.create_from_yaml(api_client, f.name)
        try:
            utils.create_from_yaml(api_client, f.name)
            failure = None
        except utils.FailToCreateError as error:
            failure = [{"status": e.status, "body": e.body} for e in error.api_exceptions]
    deployment = client.AppsV1Api(api_client).read_namespaced_deployment("py-deploy", "default")
    container = deployment.spec.template.spec.containers[0]
    report(
        "yaml",
        replicas=deployment.spec.replicas,
        strategy=deployment.spec.strategy.type,
        status=deployment.status is not None,
        pull_policy=container.image_pull_policy,
        failure=failure,
    )


def pretty_list(api_client):
    v1 = client.CoreV1Api(api_client)
    listed = v1.list_namespace(pretty=True)
    report("pretty", listed=[n.metadata.name for n in listed.items])


def watch_services(api_client):
    v1 = client.CoreV1Api(api_client)
    v1.create_namespaced_service(
        "default",
        client.V1Service(
            metadata=client.V1ObjectMeta(name="py-watched", labels={"from": "python-watch"}),
            spec=client.V1ServiceSpec(ports=[client.V1ServicePort(port=80)]),
        ),
    )
    seen = []
    w = watch.Watch()
    for event in w.stream(v1.list_namespaced_service, "default", label_selector="from=python-watch", timeout_seconds=5):
        seen.append([event["type"], event["object"].metadata.name, event["object"].status.load_balancer is not None])
        w.stop()
    report("watch", events=seen)


STEPS = {"service": service_crud, "node": node_read, "yaml": from_yaml, "pretty": pretty_list, "watch": watch_services}


def main():
    api_client = config.new_client_from_config(config_file=sys.argv[1])
    for step in sys.argv[2:]:
        STEPS[step](api_client)


if __name__ == "__main__":
    main()
