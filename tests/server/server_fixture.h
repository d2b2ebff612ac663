// An in-process parplan server on 127.0.0.1 (port 0) and a stub talking real
// gRPC to it.
#ifndef PARPLAN_TESTS_SERVER_SERVER_FIXTURE_H_
#define PARPLAN_TESTS_SERVER_SERVER_FIXTURE_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.grpc.pb.h"
#include "server/server_runner.h"

namespace parplan {

class ServerFixture : public ::testing::Test {
 protected:
  // Options beyond the gRPC listener (e.g. an HTTP door on port 0).
  virtual void Configure(ServerOptions* /*options*/) {}

  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.access_log = false;
    Configure(&options);
    auto running = StartServer(options);
    ASSERT_TRUE(running.ok()) << running.status();
    server_ = *std::move(running);
    address_ = absl::StrCat("127.0.0.1:", server_->port);
    channel_ = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
    stub_ = v1::Planner::NewStub(channel_);
    http_port_ = server_->http_port;
  }
  void TearDown() override {
    if (server_) StopServer(server_.get(), 1.0);
  }

  std::unique_ptr<grpc::ClientContext> Context(int timeout_ms = 10000) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
    return ctx;
  }

  std::unique_ptr<RunningServer> server_;
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Planner::Stub> stub_;
  int http_port_ = 0;  // when Configure asked for the HTTP door
};

}  // namespace parplan

#endif  // PARPLAN_TESTS_SERVER_SERVER_FIXTURE_H_
