"""The deployment files, without a cluster: the Kubernetes manifests have
the shape the README promises (Deployment with a gRPC liveness probe and an
HTTP /readyz readiness probe on the served ports, token from a Secret, grace
period above the drain time; a headless gRPC Service and an HTTP Service),
and the container's entrypoint command line, run here on free ports, serves
gRPC and HTTP beyond loopback with the token from PARPLAN_AUTH_TOKEN,
refuses calls without it and keeps health open for the probes.

usage: deploy_test.py PATH/parplan-server PATH/parplan SOURCE_DIR
"""
import json
import os
import re
import shlex
import subprocess
import sys

import yaml

server_bin, cli, src = sys.argv[1:4]
deploy = os.path.join(src, "scripts", "deploy")

docs = list(yaml.safe_load_all(open(os.path.join(deploy, "kubernetes.yaml"))))
kinds = {d["metadata"]["name"] if d["kind"] == "Service" else d["kind"]: d for d in docs}
assert set(kinds) == {"Deployment", "parplan", "parplan-http"}, kinds.keys()
pod = kinds["Deployment"]["spec"]["template"]["spec"]
container = pod["containers"][0]
ports = {p["name"]: p["containerPort"] for p in container["ports"]}
port, http_port = ports["grpc"], ports["http"]
assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
assert container["livenessProbe"]["grpc"]["port"] == port
args = container["args"]
grace = int(args[args.index("--grace-seconds") + 1])
assert pod["terminationGracePeriodSeconds"] > grace
assert args[args.index("--http-listen") + 1] == f"0.0.0.0:{http_port}"
assert any(e["name"] == "PARPLAN_AUTH_TOKEN" and "secretKeyRef" in e["valueFrom"] for e in container["env"])
service = kinds["parplan"]["spec"]
assert service["clusterIP"] == "None" and service["ports"][0]["port"] == port
assert kinds["parplan-http"]["spec"]["ports"][0]["targetPort"] == "http"
print("manifests ok")

dockerfile = open(os.path.join(deploy, "Dockerfile")).read()
entrypoint = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", dockerfile, re.M).group(1))
assert entrypoint[0] == "/usr/local/bin/parplan-server"
command = [server_bin] + [a.replace(":50051", ":0").replace(":8080", ":0") for a in entrypoint[1:]]
token = "deploy-test-token-0123456789"
env = {**os.environ, "PARPLAN_AUTH_TOKEN": token}
server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
try:
    line = server.stdout.readline()
    address = re.search(r"listening on (\S+)", line).group(1).replace("0.0.0.0", "127.0.0.1")
    http_address = re.search(r"http listening on (\S+)", server.stdout.readline()).group(1).replace("0.0.0.0", "127.0.0.1")
    ask = [cli, "min-gpus", "--tp", "1", "--pp", "4", "--ep", "32", "--json", "--server", address]
    with_token = subprocess.run(ask, capture_output=True, text=True, env=env, timeout=30)
    assert with_token.returncode == 0 and '"min_gpus": "128"' in with_token.stdout, with_token.stderr
    no_env = {k: v for k, v in os.environ.items() if k != "PARPLAN_AUTH_TOKEN"}
    without = subprocess.run(ask, capture_output=True, text=True, env=no_env, timeout=30)
    assert without.returncode != 0 and "UNAUTHENTICATED" in without.stderr, without.stderr
    print("entrypoint serves beyond loopback with the token; refuses without it")
    # Health needs no token (the probes send none).
    import grpc  # noqa: E402
    channel = grpc.insecure_channel(address)
    check = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda _: b"\n\x12parplan.v1.Planner",
                                response_deserializer=lambda b: b)
    reply = check(None, timeout=10)
    assert reply == b"\x08\x01", reply  # status: SERVING
    print("health open: SERVING")
    import urllib.error  # noqa: E402
    import urllib.request  # noqa: E402
    with urllib.request.urlopen(f"http://{http_address}/readyz", timeout=10) as reply:
        assert reply.status == 200 and json.load(reply) == {"status": "SERVING"}
    call = urllib.request.Request(f"http://{http_address}/v1/MinGpus", data=b'{"config":{"tp":2}}', method="POST",
                                  headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(call, timeout=10)
        raise AssertionError("HTTP call without the token was answered")
    except urllib.error.HTTPError as error:
        assert error.code == 401, error.code
    call.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(call, timeout=10) as reply:
        assert json.load(reply)["min_gpus"] == "2"
    print("http: /readyz open, /v1 needs the token")
finally:
    server.terminate()
    assert server.wait(timeout=30) == 0
print("deploy test: ok")
