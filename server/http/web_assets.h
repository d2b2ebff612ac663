// The web page's static files (server/web/), embedded in the binary at
// build time: the HTTP door serves them from memory, so no file-system path
// is ever built from a request.
#ifndef PARPLAN_SERVER_WEB_ASSETS_H_
#define PARPLAN_SERVER_WEB_ASSETS_H_

#include "absl/strings/string_view.h"

namespace parplan {
namespace http {

struct WebAsset {
  absl::string_view path;          // "/", "/app.js", "/style.css", ...
  absl::string_view content_type;  // "text/html; charset=utf-8", ...
  absl::string_view bytes;
};

// The asset served at exactly `path` ("/index.html" is "/"), or nullptr.
const WebAsset* FindWebAsset(absl::string_view path);

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_WEB_ASSETS_H_
