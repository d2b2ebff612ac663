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
extern const unsigned char kWebPlanFactsJs[];
extern const std::size_t kWebPlanFactsJsSize;
extern const unsigned char kWebApiJs[];
extern const std::size_t kWebApiJsSize;
extern const unsigned char kWebStatusJs[];
extern const std::size_t kWebStatusJsSize;
extern const unsigned char kWebFormJs[];
extern const std::size_t kWebFormJsSize;
extern const unsigned char kWebUrlJs[];
extern const std::size_t kWebUrlJsSize;
extern const unsigned char kWebRulesJs[];
extern const std::size_t kWebRulesJsSize;
extern const unsigned char kWebResolvedJs[];
extern const std::size_t kWebResolvedJsSize;
extern const unsigned char kWebPlansJs[];
extern const std::size_t kWebPlansJsSize;
extern const unsigned char kWebPicturesJs[];
extern const std::size_t kWebPicturesJsSize;
extern const unsigned char kWebRunFactsJs[];
extern const std::size_t kWebRunFactsJsSize;
extern const unsigned char kWebPasteJs[];
extern const std::size_t kWebPasteJsSize;
extern const unsigned char kWebCompareJs[];
extern const std::size_t kWebCompareJsSize;

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
      {"/plan_facts.js", "text/javascript; charset=utf-8", Bytes(kWebPlanFactsJs, kWebPlanFactsJsSize)},
      {"/api.js", "text/javascript; charset=utf-8", Bytes(kWebApiJs, kWebApiJsSize)},
      {"/status.js", "text/javascript; charset=utf-8", Bytes(kWebStatusJs, kWebStatusJsSize)},
      {"/form.js", "text/javascript; charset=utf-8", Bytes(kWebFormJs, kWebFormJsSize)},
      {"/url.js", "text/javascript; charset=utf-8", Bytes(kWebUrlJs, kWebUrlJsSize)},
      {"/rules.js", "text/javascript; charset=utf-8", Bytes(kWebRulesJs, kWebRulesJsSize)},
      {"/resolved.js", "text/javascript; charset=utf-8", Bytes(kWebResolvedJs, kWebResolvedJsSize)},
      {"/plans.js", "text/javascript; charset=utf-8", Bytes(kWebPlansJs, kWebPlansJsSize)},
      {"/pictures.js", "text/javascript; charset=utf-8", Bytes(kWebPicturesJs, kWebPicturesJsSize)},
      {"/run_facts.js", "text/javascript; charset=utf-8", Bytes(kWebRunFactsJs, kWebRunFactsJsSize)},
      {"/paste.js", "text/javascript; charset=utf-8", Bytes(kWebPasteJs, kWebPasteJsSize)},
      {"/compare.js", "text/javascript; charset=utf-8", Bytes(kWebCompareJs, kWebCompareJsSize)},
  };
  if (path == "/index.html") path = "/";
  for (const WebAsset& asset : assets) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

}  // namespace http
}  // namespace parplan
