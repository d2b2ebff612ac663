// Every row of the method table (server/api/api_methods.h) is served by every
// door: the proto service has it, gRPC answers it (not UNIMPLEMENTED), MCP
// lists it as a tool, and the CLI has exactly one command and a formatter
// for it. A row added without a door, or a door without a row, fails here.
#include "server/api/api_methods.h"

#include "absl/strings/str_cat.h"
#include "core/util/limits.h"
#include "gtest/gtest.h"
#include "server/api/tool_schemas.h"
#include "skill/cli/cli_commands.h"
#include "skill/cli/cli_table.h"
#include "skill/cli/remote_call.h"
#include "tests/server/server_fixture.h"

namespace parplan {
namespace {

class DoorsTest : public ServerFixture {};

TEST_F(DoorsTest, EveryRowHasEveryDoor) {
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName("parplan.v1.Planner");
  ASSERT_NE(service, nullptr);
  ASSERT_EQ(static_cast<int>(api::ApiMethods().size()), service->method_count());
  for (const api::ApiMethod& row : api::ApiMethods()) {
    // The proto has it with the same types.
    const auto* method = service->FindMethodByName(row.rpc);
    ASSERT_NE(method, nullptr) << row.rpc;
    EXPECT_EQ(method->input_type()->full_name(), row.request->GetDescriptor()->full_name());
    EXPECT_EQ(method->output_type()->full_name(), row.response->GetDescriptor()->full_name());
    // gRPC dispatches it from the table.
    cli::RemoteRequest call;
    call.address = address_;
    call.method = absl::StrCat("/parplan.v1.Planner/", row.rpc);
    call.timeout_ms = 10000;
    std::string bytes;
    const absl::Status status = cli::CallRemote(call, &bytes);
    EXPECT_NE(status.code(), absl::StatusCode::kUnimplemented) << row.rpc << ": " << status;
    // MCP lists it.
    bool tool = false;
    for (const auto& t : api::PlannerToolSchemas()) tool |= t.rpc == row.rpc;
    EXPECT_TRUE(tool) << row.rpc;
    // The CLI has one command and a formatter.
    int commands = 0;
    for (const cli::CliCommand& c : cli::CliCommands()) commands += row.rpc == c.rpc;
    EXPECT_EQ(commands, 1) << row.rpc;
    EXPECT_TRUE(cli::HasFormatter(row.rpc)) << row.rpc;
  }
  for (const cli::CliCommand& c : cli::CliCommands()) EXPECT_NE(api::FindApiMethod(c.rpc), nullptr) << c.name;
}

// The deadline every door gives a search: the caller's less a margin, never
// past the cap.
TEST(SearchDeadlineTest, CallerDeadlineLessAMarginUnderTheCap) {
  const absl::Time now = absl::FromUnixSeconds(1000);
  EXPECT_EQ(api::SearchDeadline(now, absl::InfiniteFuture()), now + absl::Seconds(kMaxSearchSeconds));
  EXPECT_EQ(api::SearchDeadline(now, now + absl::Seconds(1)), now + absl::Milliseconds(750));
  EXPECT_EQ(api::SearchDeadline(now, now + absl::Seconds(10)), now + absl::Seconds(9));
  EXPECT_EQ(api::SearchDeadline(now, now + absl::Seconds(100)), now + absl::Seconds(kMaxSearchSeconds));
}

}  // namespace
}  // namespace parplan
