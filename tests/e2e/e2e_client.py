"""Python (grpcio) client for the end-to-end test: health, reflection, calls.

usage: e2e_client.py HOST:PORT SOURCE_DIR WORK_DIR
Generates the Python stubs from the repository's proto at run time (protoc +
grpc_python_plugin from Debian's protobuf-compiler-grpc).
"""
import importlib.util
import os
import subprocess
import sys


def load(out, relative_path, name):
    """Loads a generated *_pb2 module by path (grpc/health/... would clash with the grpc package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(out, relative_path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generate(src, out):
    protos = [
        (os.path.join(src, "proto"), "parplan/v1/planner.proto"),
        ("/usr/share/grpc-proto", "grpc/health/v1/health.proto"),
        ("/usr/share/grpc-proto", "grpc/reflection/v1alpha/reflection.proto"),
        ("/usr/share/gocode/src/github.com/gogo/googleapis", "google/rpc/status.proto"),
        ("/usr/share/gocode/src/github.com/gogo/googleapis", "google/rpc/error_details.proto"),
    ]
    for include, proto in protos:
        # Debian's protoc (3.21) with gRPC's Python plugin; python3-grpc-tools
        # bundles an older protoc without proto3 `optional`.
        subprocess.run(["protoc", "-I", include, "-I", "/usr/include", "--python_out", out, "--grpc_out", out,
                        "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin", os.path.join(include, proto)],
                       check=True)
    sys.path.insert(0, out)


def main():
    address, src, work = sys.argv[1:4]
    out = os.path.join(work, "py")
    os.makedirs(out, exist_ok=True)
    generate(src, out)
    import grpc
    health_pb2 = load(out, "grpc/health/v1/health_pb2.py", "health_pb2")
    reflection_pb2 = load(out, "grpc/reflection/v1alpha/reflection_pb2.py", "reflection_pb2")
    from google.rpc import error_details_pb2, status_pb2
    from parplan.v1 import planner_pb2, planner_pb2_grpc

    channel = grpc.insecure_channel(address)
    grpc.channel_ready_future(channel).result(timeout=10)

    check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                                response_deserializer=health_pb2.HealthCheckResponse.FromString)
    for service in ("", "parplan.v1.Planner"):
        reply = check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, (service, reply)

    reflect = channel.stream_stream("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                    request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                    response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    replies = reflect(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)
    services = {s.name for r in replies for s in r.list_services_response.service}
    assert "parplan.v1.Planner" in services, services
    assert "grpc.health.v1.Health" in services, services

    planner = planner_pb2_grpc.PlannerStub(channel)
    table = [(1, 2, 1, 8, 1, 16, 8), (1, 4, 1, 8, 1, 32, 8), (1, 2, 2, 8, 1, 32, 8), (1, 2, 4, 8, 1, 64, 8),
             (2, 2, 1, 8, 1, 32, 16), (1, 2, 1, 4, 2, 16, 8), (4, 1, 1, 32, 1, 128, 128)]
    for pp, tp, cp, ep, etp, naive, minimum in table:
        config = planner_pb2.ParallelConfig(pp=pp, tp=tp, cp=cp, ep=ep, etp=etp)
        reply = planner.MinGpus(planner_pb2.MinGpusRequest(config=config), timeout=5)
        assert (reply.min_gpus, reply.naive_product) == (minimum, naive), reply

    reply = planner.Validate(planner_pb2.ValidateRequest(
        model=planner_pb2.ModelRef(id="deepseek-ai/DeepSeek-V3"),
        placement=planner_pb2.Placement(system="dgx-h100", gpus=256),
        config=planner_pb2.ParallelConfig(tp=2, pp=16, ep=64, etp=1)), timeout=5)
    assert not reply.valid
    assert "mesh.world_expert_divisible" in {v.rule for v in reply.violations}

    memory = planner.EstimateMemory(planner_pb2.EstimateMemoryRequest(
        model=planner_pb2.ModelRef(id="llama3_8b"), placement=planner_pb2.Placement(system="h100-sxm", gpus=8),
        config=planner_pb2.ParallelConfig(tp=2, seq_length=8192)), timeout=5)
    assert memory.fits and 0 < memory.peak_bytes < memory.capacity_bytes, memory
    perf = planner.EstimatePerformance(planner_pb2.EstimatePerformanceRequest(
        model=planner_pb2.ModelRef(id="llama3_8b"), placement=planner_pb2.Placement(system="h100-sxm", gpus=8),
        config=planner_pb2.ParallelConfig(tp=2, seq_length=8192, precision="bf16")), timeout=5)
    assert perf.step_time_s > 0 and 0.1 < perf.mfu < 0.8, perf
    assert abs(perf.tokens_per_s_per_gpu - perf.gbs * 8192 / perf.step_time_s / 8) < 1e-6 * perf.tokens_per_s_per_gpu

    plans = planner.Recommend(planner_pb2.RecommendRequest(
        model=planner_pb2.ModelRef(id="qwen3_30b_a3b"), placement=planner_pb2.Placement(system="b200", gpus=8),
        config=planner_pb2.ParallelConfig(seq_length=4096, precision="fp8-mx"), top_k=3), timeout=10)
    assert plans.feasible and len(plans.plans) == 3, plans
    assert all(p.valid and p.fits for p in plans.plans)
    assert plans.plans[0].tokens_per_s_per_gpu >= plans.plans[2].tokens_per_s_per_gpu * 0.98
    too_big = planner.Recommend(planner_pb2.RecommendRequest(
        model=planner_pb2.ModelRef(id="llama31_405b"), placement=planner_pb2.Placement(system="h100-sxm", gpus=8)),
        timeout=10)
    assert not too_big.feasible and "No valid config fits" in too_big.infeasible_reason, too_big.infeasible_reason

    try:
        planner.MinGpus(planner_pb2.MinGpusRequest(config=planner_pb2.ParallelConfig(tp=99999)), timeout=5)
        raise AssertionError("tp=99999 accepted")
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, e.code()
        details = dict(e.trailing_metadata()).get("grpc-status-details-bin")
        status = status_pb2.Status.FromString(details)
        bad = error_details_pb2.BadRequest()
        assert status.details[0].Unpack(bad)
        assert bad.field_violations[0].field == "config.tp", bad

    try:
        planner.GetModel(planner_pb2.GetModelRequest(model=planner_pb2.ModelRef(id="no-such-model")), timeout=5)
        raise AssertionError("unknown model accepted")
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.NOT_FOUND, e.code()
    print("python client OK")


if __name__ == "__main__":
    main()
