#include "server/http/web_assets.h"

#include <cstddef>

namespace parplan {
// Generated from server/web/ by scripts/cmake/embed_bytes.cmake.
extern const unsigned char kWebIndexHtml[];
extern const std::size_t kWebIndexHtmlSize;
extern const unsigned char kWebAppJs[];
extern const std::size_t kWebAppJsSize;
extern const unsigned char kWebFieldsJs[];
extern const std::size_t kWebFieldsJsSize;
extern const unsigned char kWebFormatJs[];
extern const std::size_t kWebFormatJsSize;
extern const unsigned char kWebCheckJs[];
extern const std::size_t kWebCheckJsSize;
extern const unsigned char kWebStyleCss[];
extern const std::size_t kWebStyleCssSize;

namespace http {
namespace {

absl::string_view Bytes(const unsigned char* data, std::size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace

const WebAsset* FindWebAsset(absl::string_view path) {
  static const WebAsset assets[] = {
      {"/", "text/html; charset=utf-8", Bytes(kWebIndexHtml, kWebIndexHtmlSize)},
      {"/app.js", "text/javascript; charset=utf-8", Bytes(kWebAppJs, kWebAppJsSize)},
      {"/fields.js", "text/javascript; charset=utf-8", Bytes(kWebFieldsJs, kWebFieldsJsSize)},
      {"/format.js", "text/javascript; charset=utf-8", Bytes(kWebFormatJs, kWebFormatJsSize)},
      {"/check.js", "text/javascript; charset=utf-8", Bytes(kWebCheckJs, kWebCheckJsSize)},
      {"/style.css", "text/css; charset=utf-8", Bytes(kWebStyleCss, kWebStyleCssSize)},
  };
  if (path == "/index.html") path = "/";
  for (const WebAsset& asset : assets) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

}  // namespace http
}  // namespace parplan
