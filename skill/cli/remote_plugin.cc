// The gRPC client of the CLI, built as a plugin (libparplan_remote.so) so
// that `parplan` loads gRPC only for --server (see remote_call.h). It moves
// bytes only: no protobuf generated code lives here, so nothing is
// registered twice in the process's descriptor pool.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <future>

#include "skill/cli/remote_call.h"

extern "C" void ParplanRemoteCall(const parplan::cli::RemoteRequest& in, parplan::cli::RemoteReply* out) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  grpc::ChannelArguments args;
  if (!in.tls_ca_pem.empty()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = in.tls_ca_pem;
    credentials = grpc::SslCredentials(ssl);
    if (!in.tls_server_name.empty()) args.SetSslTargetNameOverride(in.tls_server_name);
  }
  auto channel = grpc::CreateCustomChannel(in.address, credentials, args);
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  if (!in.token.empty()) context.AddMetadata("authorization", "Bearer " + in.token);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(in.timeout_ms));
  grpc::Slice slice(in.request);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, in.method, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(std::move(status)); });
  const grpc::Status status = done.get_future().get();
  out->code = static_cast<int>(status.error_code());
  out->message = status.error_message();
  out->details = status.error_details();
  if (!status.ok()) return;
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    out->code = static_cast<int>(grpc::StatusCode::INTERNAL);
    out->message = "unreadable response bytes";
    return;
  }
  for (const auto& s : slices) out->response.append(reinterpret_cast<const char*>(s.begin()), s.size());
}
