"""The deployment files, without a cluster: the Kubernetes manifests have
the shape the README promises (Deployment with gRPC health probes on the
served port, token from a Secret, grace period above the drain time; a
headless Service), and the container's entrypoint command line, run here on
a free port, serves beyond loopback with the token from PARPLAN_AUTH_TOKEN,
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
kinds = {d["kind"]: d for d in docs}
assert set(kinds) == {"Deployment", "Service"}, kinds.keys()
pod = kinds["Deployment"]["spec"]["template"]["spec"]
container = pod["containers"][0]
port = container["ports"][0]["containerPort"]
assert container["readinessProbe"]["grpc"]["port"] == port
assert container["readinessProbe"]["grpc"]["service"] == "parplan.v1.Planner"
assert container["livenessProbe"]["grpc"]["port"] == port
args = container["args"]
grace = int(args[args.index("--grace-seconds") + 1])
assert pod["terminationGracePeriodSeconds"] > grace
assert any(e["name"] == "PARPLAN_AUTH_TOKEN" and "secretKeyRef" in e["valueFrom"] for e in container["env"])
service = kinds["Service"]["spec"]
assert service["clusterIP"] == "None" and service["ports"][0]["port"] == port
print("manifests ok")

dockerfile = open(os.path.join(deploy, "Dockerfile")).read()
entrypoint = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", dockerfile, re.M).group(1))
assert entrypoint[0] == "/usr/local/bin/parplan-server"
command = [server_bin] + [a.replace(":50051", ":0") for a in entrypoint[1:]]
token = "deploy-test-token-0123456789"
env = {**os.environ, "PARPLAN_AUTH_TOKEN": token}
server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
try:
    line = server.stdout.readline()
    address = re.search(r"listening on (\S+)", line).group(1).replace("0.0.0.0", "127.0.0.1")
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
finally:
    server.terminate()
    assert server.wait(timeout=30) == 0
print("deploy test: ok")
