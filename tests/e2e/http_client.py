"""The HTTP door from Python's urllib and from curl, against real parplan-server processes.

usage: http_client.py PATH/parplan-server SOURCE_DIR WORK_DIR

Every method through POST /v1/<Method>: urllib's and curl's bodies are byte-identical, and the
answer parsed back into its proto equals the gRPC door's answer to the same request (Python grpcio
stubs generated at run time). Then hostile input (oversized body, bad JSON, wrong content type, path
traversal, a foreign Origin), HTTPS with a bearer token (401 without it), and the server still serving.
"""
import json
import os
import signal
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_client  # noqa: E402  (stub generation)

SAMPLES = {
    "ListModels": {"filter": "llama"},
    "GetModel": {"model": {"id": "llama3_8b"}},
    "ListSystems": {},
    "GetSystem": {"system": "h100-sxm"},
    "MinGpus": {"config": {"tp": 1, "pp": 4, "ep": 32}},
    "Validate": {"model": {"id": "llama3_70b"}, "placement": {"system": "h100-sxm", "gpus": 64}, "config": {"tp": 3}},
    "ExplainLayout": {"placement": {"system": "h100-sxm", "gpus": 64}, "config": {"tp": 4, "pp": 2}, "rank": 5},
    "RenderConfig": {"model": {"id": "llama3_70b"}, "placement": {"system": "h100-sxm", "gpus": 64},
                     "config": {"tp": 4, "pp": 4}},
    "EstimateMemory": {"model": {"id": "llama3_70b"}, "placement": {"system": "h100-sxm", "gpus": 64},
                       "config": {"tp": 2}},
    "EstimatePerformance": {"model": {"id": "mixtral_8x7b"}, "placement": {"system": "h100-sxm", "gpus": 64},
                            "config": {"tp": 2, "ep": 8}},
    "Recommend": {"model": {"id": "llama3_8b"}, "placement": {"system": "h100-sxm", "gpus": 8}, "top_k": 2},
}


def start(server_bin, work, name, *args, env=None):
    """Starts parplan-server with HTTP on a free port; returns (process, grpc_port, http_port)."""
    out = open(os.path.join(work, name + ".out"), "w+")
    err = open(os.path.join(work, name + ".err"), "w")
    proc = subprocess.Popen([server_bin, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", *args],
                            stdout=out, stderr=err, env=env)
    for _ in range(200):
        out.seek(0)
        lines = out.read().splitlines()
        ports = [line.rsplit(":", 1)[1] for line in lines if "listening on" in line]
        if len(ports) == 2:
            return proc, int(ports[0]), int(ports[1])
        if proc.poll() is not None:
            sys.exit(f"{name}: parplan-server exited: {open(err.name).read()}")
        subprocess.run(["sleep", "0.05"])
    sys.exit(f"{name}: parplan-server did not report its ports")


def post(url, body, headers=None, context=None, content_type="application/json"):
    """POSTs `body` (bytes) with urllib; returns (status, headers, body bytes)."""
    request = urllib.request.Request(url, data=body, method="POST")
    if content_type:
        request.add_header("Content-Type", content_type)
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=60, context=context) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def curl(url, *args):
    """(status, body bytes) of curl on `url` with `args`."""
    done = subprocess.run(["curl", "-sS", "--max-time", "60", "-o", "-", "-w", "\n%{http_code}", *args, url],
                          capture_output=True, check=True)
    body, _, status = done.stdout.rpartition(b"\n")
    return int(status), body


def check_every_method(work, grpc_port, http_port):
    import grpc
    from google.protobuf import json_format
    from parplan.v1 import planner_pb2

    channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    for method, sample in SAMPLES.items():
        body = json.dumps(sample).encode()
        url = f"http://127.0.0.1:{http_port}/v1/{method}"
        status, headers, from_urllib = post(url, body)
        assert status == 200, (method, status, from_urllib[:300])
        assert headers["Content-Type"] == "application/json", headers
        curl_status, from_curl = curl(url, "-X", "POST", "-H", "Content-Type: application/json",
                                      "--data-binary", body.decode())
        assert curl_status == 200 and from_curl == from_urllib, (method, curl_status, from_curl[:200])
        request_type = getattr(planner_pb2, method + "Request")
        response_type = getattr(planner_pb2, method + "Response")
        call = channel.unary_unary(f"/parplan.v1.Planner/{method}",
                                   request_serializer=request_type.SerializeToString,
                                   response_deserializer=response_type.FromString)
        from_grpc = call(json_format.Parse(body, request_type()), timeout=60)
        from_http = json_format.Parse(from_urllib, response_type())
        assert from_http == from_grpc, f"{method}: the HTTP answer differs from the gRPC answer"
    print(f"http: {len(SAMPLES)} methods, urllib == curl bytes, answers == gRPC answers")


def check_hostile(http_port):
    base = f"http://127.0.0.1:{http_port}"
    status, _, body = post(base + "/v1/MinGpus", b"x" * (5 << 20))
    assert status == 413, (status, body[:200])
    status, _, body = post(base + "/v1/MinGpus", b'{"config": {"tp": ')
    assert status == 400 and json.loads(body)["error"]["code"] == "INVALID_ARGUMENT", (status, body)
    status, _, body = post(base + "/v1/MinGpus", b"{}", content_type="text/plain")
    assert status == 415, status
    status, _, body = post(base + "/v1/Recommend", b"{}", headers={"X-Timeout-Ms": "-5"})
    assert status == 400, status
    for path in ("/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/app.js/../../etc/passwd", "/..%2f..%2fetc"):
        code, body = curl(base + path, "--path-as-is")
        assert code == 404 and b"root:" not in body, (path, code)
    code, body = curl(base + "/v1/MinGpus", "-X", "POST", "-H", "Content-Type: application/json",
                      "-H", "Origin: http://evil.example", "--data-binary", "{}")
    assert code == 403, code
    code, body = curl(base + "/readyz")
    assert code == 200 and json.loads(body) == {"status": "SERVING"}, (code, body)
    print("http: hostile input answered 413/400/415/400/404/403; still serving")


def check_tls_and_token(server_bin, work):
    key, cert = os.path.join(work, "key.pem"), os.path.join(work, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    token = os.urandom(16).hex()
    env = dict(os.environ, PARPLAN_AUTH_TOKEN=token)
    proc, _, port = start(server_bin, work, "tls", "--tls-cert", cert, "--tls-key", key, env=env)
    try:
        context = ssl.create_default_context(cafile=cert)
        url = f"https://127.0.0.1:{port}/v1/MinGpus"
        status, headers, body = post(url, b'{"config":{"tp":2,"pp":2}}', context=context)
        assert status == 401 and headers["WWW-Authenticate"] == "Bearer", (status, body)
        status, _, body = post(url, b'{"config":{"tp":2,"pp":2}}', context=context,
                               headers={"Authorization": "Bearer " + token})
        assert status == 200 and json.loads(body)["min_gpus"] == "4", (status, body)
        code, body = curl(url, "--cacert", cert, "-X", "POST", "-H", "Content-Type: application/json",
                          "-H", "Authorization: Bearer " + token, "--data-binary", '{"config":{"tp":8}}')
        assert code == 200 and json.loads(body)["min_gpus"] == "8", (code, body)
        code, _ = curl(f"https://127.0.0.1:{port}/readyz", "--cacert", cert)
        assert code == 200, code
        print("https: 401 without the token, 200 with it (urllib and curl)")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def main():
    server_bin, src, work = sys.argv[1:4]
    out = os.path.join(work, "py")
    os.makedirs(out, exist_ok=True)
    e2e_client.generate(src, out)
    proc, grpc_port, http_port = start(server_bin, work, "plain")
    try:
        check_every_method(work, grpc_port, http_port)
        check_hostile(http_port)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, "parplan-server did not stop cleanly"
    log = open(os.path.join(work, "plain.err")).read()
    assert "access door=http method=POST path=/v1/MinGpus status=200" in log, log[-2000:]
    check_tls_and_token(server_bin, work)
    print("http e2e: ok")


if __name__ == "__main__":
    main()
