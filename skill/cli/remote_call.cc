#include "skill/cli/remote_call.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "server/api/rpc_status_details.h"

namespace parplan {
namespace cli {
namespace {

constexpr char kPluginName[] = "libparplan_remote.so";

// $PARPLAN_REMOTE_PLUGIN, else the plugin beside this executable.
std::string PluginPath() {
  if (const char* env = std::getenv("PARPLAN_REMOTE_PLUGIN"); env != nullptr && *env != '\0') return env;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return kPluginName;
  std::string path(exe, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? kPluginName : absl::StrCat(path.substr(0, slash + 1), kPluginName);
}

}  // namespace

absl::Status CallRemote(const RemoteRequest& request, std::string* response) {
  static std::once_flag once;
  static RemoteCallFn call = nullptr;
  static std::string load_error;
  std::call_once(once, [] {
    const std::string path = PluginPath();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      load_error = absl::StrCat("cannot load the gRPC client plugin ", path, ": ", dlerror());
      return;
    }
    call = reinterpret_cast<RemoteCallFn>(dlsym(handle, "ParplanRemoteCall"));
    if (call == nullptr) load_error = absl::StrCat(path, " has no ParplanRemoteCall");
  });
  if (call == nullptr) return absl::UnavailableError(load_error);
  RemoteReply reply;
  call(request, &reply);
  if (reply.code != 0) return StatusFromRpcParts(reply.code, reply.message, reply.details);
  *response = std::move(reply.response);
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace parplan
