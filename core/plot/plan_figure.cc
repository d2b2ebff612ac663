// SVG pictures of one training plan (see plan_figure.h for the contract).
//
// Each picture is first laid out as a Picture: a width, a height and the SVG
// elements drawn inside the box (0,0)-(width,height). The public functions
// wrap one picture in its own <svg> document, or stack all three under the
// title (PlanSvg). Only presentation attributes are used (no <style>), so
// several of these SVGs can sit inline in one HTML page without their styles
// leaking into each other. Every number is printed with one decimal at most
// ("%.1f", trailing ".0" dropped) so the output is deterministic, and every
// input number is cleaned first: NaN, infinities and negatives count as 0.
#include "core/plot/plan_figure.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"

namespace parplan {
namespace {

constexpr double kGiB = 1073741824.0;  // 2^30 bytes
constexpr char kFontFamily[] = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, DejaVu Sans, sans-serif";
constexpr char kInk[] = "#1f2937";    // text and TP outlines
constexpr char kMuted[] = "#6b7280";  // secondary text
constexpr char kGrid[] = "#e5e7eb";   // gridlines
constexpr char kRed[] = "#dc2626";    // over capacity, leaving the NVLink domain
constexpr char kEpColor[] = "#7c3aed";
constexpr char kDomainColor[] = "#0284c7";
constexpr double kPad = 16;  // outer margin of every picture

// Stage colours: light enough for dark rank numbers on top; they repeat
// after kStagePalette.size() stages.
const std::vector<std::string>& StagePalette() {
  static const auto* palette =
      new std::vector<std::string>{"#93c5fd", "#fdba74", "#86efac", "#fca5a5", "#c4b5fd", "#fde047",
                                   "#5eead4", "#f9a8d4", "#d6d3d1", "#a5b4fc", "#bef264", "#fcd34d"};
  return *palette;
}

// A laid-out picture: SVG elements inside the box (0,0)-(width,height).
struct Picture {
  double width = 0;
  double height = 0;
  std::string body;
};

// `v` when it is a finite positive number, else 0.
double Clean(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

// Bytes as a non-negative double.
double CleanBytes(int64_t bytes) { return bytes > 0 ? static_cast<double>(bytes) : 0; }

// `s` with the five XML special characters escaped.
std::string Esc(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}, {"'", "&apos;"}});
}

// `v` with one decimal, a trailing ".0" dropped and "-0" printed as "0";
// non-finite values print as "0".
std::string Num(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = absl::StrFormat("%.1f", v);
  if (absl::EndsWith(s, ".0")) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

// A GiB figure for labels: "71.2", or "80" for a whole number.
std::string GiB(double bytes) { return Num(bytes / kGiB); }

// Seconds for labels: two decimals under 10 s, one above (never "-0").
std::string Seconds(double s) {
  s = Clean(s);
  return s < 10 ? absl::StrFormat("%.2f s", s) : absl::StrFormat("%.1f s", s);
}

// `part` as a share of `whole` (> 0): "92.2%", or "<0.1%" for a sliver.
std::string Share(double part, double whole) {
  const double pct = 100 * part / whole;
  return pct < 0.05 ? "<0.1%" : absl::StrFormat("%.1f%%", pct);
}

// Rough rendered width of `s` at `font_size` px in a sans-serif font.
double TextWidth(absl::string_view s, double font_size) { return static_cast<double>(s.size()) * font_size * 0.58; }

// A <text> element at (x, y) with extra attributes `attrs` (may be empty).
std::string Text(double x, double y, absl::string_view text, absl::string_view attrs = "") {
  return absl::StrCat("<text x=\"", Num(x), "\" y=\"", Num(y), "\"", attrs.empty() ? "" : " ", attrs, ">", Esc(text),
                      "</text>\n");
}

// A filled rectangle with extra attributes `attrs` (may be empty).
std::string Rect(double x, double y, double w, double h, absl::string_view attrs) {
  return absl::StrCat("<rect x=\"", Num(x), "\" y=\"", Num(y), "\" width=\"", Num(w), "\" height=\"", Num(h), "\" ",
                      attrs, "/>\n");
}

// A line from (x1,y1) to (x2,y2) with attributes `attrs`.
std::string Line(double x1, double y1, double x2, double y2, absl::string_view attrs) {
  return absl::StrCat("<line x1=\"", Num(x1), "\" y1=\"", Num(y1), "\" x2=\"", Num(x2), "\" y2=\"", Num(y2), "\" ",
                      attrs, "/>\n");
}

// A section heading and an optional muted sub-line; returns the y below them.
double Heading(std::string* body, absl::string_view heading, absl::string_view sub) {
  absl::StrAppend(body, Text(kPad, kPad + 14, heading, "font-size=\"15\" font-weight=\"600\""));
  if (sub.empty()) return kPad + 26;
  absl::StrAppend(body, Text(kPad, kPad + 32, sub, absl::StrCat("font-size=\"12\" fill=\"", kMuted, "\"")));
  return kPad + 44;
}

// A picture holding a heading and the words "no data".
Picture NoData(absl::string_view heading) {
  Picture p;
  p.width = 360;
  p.height = 90;
  Heading(&p.body, heading, "");
  absl::StrAppend(&p.body, Text(kPad, kPad + 52, "no data", absl::StrCat("class=\"no-data\" fill=\"", kMuted, "\"")));
  return p;
}

// The opening of a standalone SVG document of size w x h titled `title`,
// with a white background.
std::string SvgOpen(double w, double h, absl::string_view title) {
  return absl::StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ", Num(w), " ", Num(h), "\" width=\"",
                      Num(w), "\" height=\"", Num(h), "\" font-family=\"", kFontFamily, "\" font-size=\"12\" fill=\"",
                      kInk, "\">\n<title>", Esc(title), "</title>\n<rect class=\"background\" width=\"", Num(w),
                      "\" height=\"", Num(h), "\" fill=\"#ffffff\"/>\n");
}

// `picture` as a standalone SVG document titled `title`.
std::string Document(const Picture& picture, absl::string_view title) {
  return absl::StrCat(SvgOpen(picture.width, picture.height, title), picture.body, "</svg>\n");
}

// `figure.title` followed by ": what", or just `what` when untitled.
std::string Titled(const PlanFigure& figure, absl::string_view what) {
  return figure.title.empty() ? std::string(what) : absl::StrCat(figure.title, ": ", what);
}

// Lays out legend entries (a 12x12 swatch and a label) left to right,
// wrapping at a maximum width.
class Legend {
 public:
  // Swatch drawer: given the swatch's top-left corner, its SVG.
  using Swatch = std::function<std::string(double x, double y)>;

  // Entries start at (x, y) and wrap before x + width.
  Legend(double x, double y, double width) : x0_(x), x_(x), y_(y), right_(x + width) {}

  // Appends one entry; an entry wider than the line gets a line of its own.
  void Add(const Swatch& swatch, absl::string_view label) {
    const double w = 18 + TextWidth(label, 12);
    if (x_ > x0_ && x_ + w > right_) NewLine();
    absl::StrAppend(&body_, swatch(x_, y_), Text(x_ + 18, y_ + 10, label));
    x_ += w + 18;
    widest_ = std::max(widest_, x_ - x0_);
  }

  // Appends a muted note on a line of its own.
  void Note(absl::string_view text, absl::string_view colour = kMuted) {
    if (x_ > x0_) NewLine();
    absl::StrAppend(&body_, Text(x0_, y_ + 10, text, absl::StrCat("class=\"legend-note\" fill=\"", colour, "\"")));
    widest_ = std::max(widest_, TextWidth(text, 12));
    NewLine();
  }

  // The y below the last line.
  double Bottom() const { return x_ > x0_ ? y_ + 20 : y_; }
  double Widest() const { return widest_; }
  const std::string& Body() const { return body_; }

 private:
  void NewLine() {
    x_ = x0_;
    y_ += 20;
  }
  double x0_, x_, y_, right_;
  double widest_ = 0;
  std::string body_;
};

// A square colour swatch.
Legend::Swatch FillSwatch(const std::string& fill) {
  return [fill](double x, double y) { return Rect(x, y, 12, 12, absl::StrCat("fill=\"", fill, "\" rx=\"2\"")); };
}

// An unfilled swatch outlined with `stroke` (dashed when `dash` is set).
Legend::Swatch OutlineSwatch(const std::string& stroke, absl::string_view dash) {
  const std::string dash_attr = dash.empty() ? "" : absl::StrCat(" stroke-dasharray=\"", dash, "\"");
  return [stroke, dash_attr](double x, double y) {
    return Rect(x + 1, y + 1, 10, 10,
                absl::StrCat("fill=\"none\" stroke=\"", stroke, "\" stroke-width=\"2\"", dash_attr));
  };
}

// A short thick line swatch.
Legend::Swatch LineSwatch(const std::string& stroke, absl::string_view dash) {
  const std::string dash_attr = dash.empty() ? "" : absl::StrCat(" stroke-dasharray=\"", dash, "\"");
  return [stroke, dash_attr](double x, double y) {
    return Line(x, y + 6, x + 12, y + 6, absl::StrCat("stroke=\"", stroke, "\" stroke-width=\"3\"", dash_attr));
  };
}

// ------------------------------------------------------------------ rank map

// The rank map's geometry: nodes are rows, local GPUs columns; when there
// are many nodes the rows wrap into side-by-side panels.
struct Grid {
  int rows = 0;  // distinct nodes
  int cols = 0;  // GPUs per node
  int rows_per_panel = 0;
  int panels = 1;
  double cell = 0;     // cell side, px
  double label_w = 0;  // node label column, px
  double panel_gap = 0;
  double top = 0;             // y of the first row
  std::vector<int> slot;      // rows * cols: index into figure.ranks, or -1
  std::vector<int64_t> node;  // node id of each row

  double PanelWidth() const { return label_w + cols * cell; }
  double Width() const { return panels * PanelWidth() + (panels - 1) * panel_gap; }
  double Height() const { return rows_per_panel * cell; }
  double X(int row, int col) const {
    return kPad + (row / rows_per_panel) * (PanelWidth() + panel_gap) + label_w + col * cell;
  }
  double Y(int row) const { return top + (row % rows_per_panel) * cell; }
  int At(int row, int col) const {
    return row >= 0 && row < rows && col >= 0 && col < cols ? slot[row * cols + col] : -1;
  }
  // The rank drawn next to (row, col) in direction (drow, dcol), or -1; rows
  // in different panels are not neighbours.
  int Neighbour(int row, int col, int drow, int dcol) const {
    const int r = row + drow;
    if (drow != 0 && (r < 0 || r / rows_per_panel != row / rows_per_panel)) return -1;
    return At(r, col + dcol);
  }
};

// Picks the largest cell side (from a fixed ladder) for which the rows,
// wrapped into panels no taller than about 720 px, fit 1000 px of width;
// the smallest side wraps into as many panels as fit and grows downwards.
void ChooseCellSize(Grid* g) {
  constexpr double kMaxWidth = 1000, kMaxHeight = 720, kLadder[] = {44, 36, 30, 24, 18, 14, 11, 9, 7, 6};
  g->panel_gap = 20;
  for (double cell : kLadder) {
    g->cell = cell;
    g->label_w = cell >= 11 ? 60 : 52;
    g->panels = std::max(1, static_cast<int>(std::ceil(g->rows * cell / kMaxHeight)));
    g->panels = std::min(g->panels, g->rows);
    if (g->Width() <= kMaxWidth) break;
  }
  if (g->Width() > kMaxWidth) {  // smallest cell: as many panels as fit
    g->panels = std::max(1, static_cast<int>((kMaxWidth + g->panel_gap) / (g->PanelWidth() + g->panel_gap)));
    g->panels = std::min(g->panels, g->rows);
  }
  g->rows_per_panel = (g->rows + g->panels - 1) / g->panels;
  g->panels = (g->rows + g->rows_per_panel - 1) / g->rows_per_panel;
}

// Places every rank with a valid (node, local_gpu) in the grid; a second
// rank on a taken slot is dropped.
Grid BuildGrid(const PlanFigure& figure, double top) {
  Grid g;
  int max_local = 0;
  std::map<int64_t, int> row_of;
  for (const FigureRank& r : figure.ranks) {
    if (r.local_gpu < 0 || r.node < 0) continue;
    max_local = std::max(max_local, r.local_gpu);
    row_of.emplace(r.node, 0);
  }
  for (auto& [node, row] : row_of) {
    row = g.rows++;
    g.node.push_back(node);
  }
  g.cols = std::max(std::max(1, figure.gpus_per_node), max_local + 1);
  g.slot.assign(static_cast<size_t>(g.rows) * g.cols, -1);
  for (size_t i = 0; i < figure.ranks.size(); ++i) {
    const FigureRank& r = figure.ranks[i];
    if (r.local_gpu < 0 || r.node < 0) continue;
    int& s = g.slot[static_cast<size_t>(row_of[r.node]) * g.cols + r.local_gpu];
    if (s < 0) s = static_cast<int>(i);
  }
  g.top = top;
  if (g.rows > 0) ChooseCellSize(&g);
  return g;
}

// Group ids of one kind (TP or EP) by rank index; ids shared by fewer than
// two placed ranks become -1 so that they get no outline.
std::vector<int64_t> GroupKeys(const PlanFigure& figure, const Grid& g, bool ep) {
  std::vector<int64_t> key(figure.ranks.size(), -1);
  std::map<int64_t, int> count;
  for (int s : g.slot) {
    if (s < 0) continue;
    key[s] = ep ? figure.ranks[s].ep_group : figure.ranks[s].tp_group;
    if (key[s] >= 0) ++count[key[s]];
  }
  for (int64_t& k : key) {
    if (k >= 0 && count[k] < 2) k = -1;
  }
  return key;
}

// Path data ("M x y H x" / "M x y V y" segments) outlining each group of
// `key` (index into figure.ranks -> group id, -1 = none): one segment per
// cell edge whose neighbour is not in the same group, `inset` px inside.
std::string OutlinePath(const Grid& g, const std::vector<int64_t>& key, double inset) {
  std::string d;
  auto same = [&](int a, int b) { return b >= 0 && key[b] == key[a]; };
  for (int row = 0; row < g.rows; ++row) {
    for (int col = 0; col < g.cols; ++col) {
      const int s = g.At(row, col);
      if (s < 0 || key[s] < 0) continue;
      const double x = g.X(row, col), y = g.Y(row), c = g.cell;
      const bool up = same(s, g.Neighbour(row, col, -1, 0)), down = same(s, g.Neighbour(row, col, 1, 0));
      const bool left = same(s, g.Neighbour(row, col, 0, -1)), right = same(s, g.Neighbour(row, col, 0, 1));
      const double x0 = x + (left ? 0 : inset), x1 = x + c - (right ? 0 : inset);
      const double y0 = y + (up ? 0 : inset), y1 = y + c - (down ? 0 : inset);
      if (!up) absl::StrAppend(&d, "M", Num(x0), " ", Num(y + inset), "H", Num(x1));
      if (!down) absl::StrAppend(&d, "M", Num(x0), " ", Num(y + c - inset), "H", Num(x1));
      if (!left) absl::StrAppend(&d, "M", Num(x + inset), " ", Num(y0), "V", Num(y1));
      if (!right) absl::StrAppend(&d, "M", Num(x + c - inset), " ", Num(y0), "V", Num(y1));
    }
  }
  return d;
}

// The pipeline stage of a rank, never negative.
int StageOf(const FigureRank& r) { return std::max(0, r.pp_stage); }

// Whether rank `r`'s TP or EP group leaves its NVLink domain.
bool Crosses(const FigureRank& r) { return r.tp_crosses_domain || r.ep_crosses_domain; }

// The group kind upper-cased for labels ("DP"), "" when none is chosen.
std::string KindLabel(const PlanFigure& figure) {
  std::string k = figure.group_kind;
  for (char& c : k) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return k;
}

// The legend entries of the stage colours for the stages in `drawn`
// (sorted, distinct): "stage 3", or "stages 0, 12, 24" when colours repeat.
void StageLegend(const std::vector<int>& drawn, Legend* legend) {
  const auto& palette = StagePalette();
  std::map<size_t, std::vector<int>> by_colour;
  for (int s : drawn) by_colour[s % palette.size()].push_back(s);
  for (const auto& [colour, stages] : by_colour) {
    std::string label = absl::StrCat(stages.size() > 1 ? "stages " : "stage ", stages[0]);
    for (size_t i = 1; i < stages.size() && i < 3; ++i) absl::StrAppend(&label, ", ", stages[i]);
    if (stages.size() > 3) absl::StrAppend(&label, ", ... (", stages.size(), ")");
    legend->Add(FillSwatch(palette[colour]), label);
  }
}

// One <rect class="rank-cell"> per placed rank (with a hover <title> for
// worlds up to 1024 ranks) and its rank number when the cell is big enough.
std::string CellsSvg(const PlanFigure& figure, const Grid& g) {
  std::string out;
  const bool tooltips = figure.ranks.size() <= 1024;
  const double stroke = g.cell >= 9 ? 1 : 0.5;
  for (int row = 0; row < g.rows; ++row) {
    for (int col = 0; col < g.cols; ++col) {
      const int s = g.At(row, col);
      if (s < 0) continue;
      const FigureRank& r = figure.ranks[s];
      const int stage = StageOf(r);
      const bool by_group = !figure.group_kind.empty() && r.group >= 0;
      const std::string& fill = StagePalette()[(by_group ? r.group : stage) % StagePalette().size()];
      absl::StrAppend(&out, "<rect class=\"rank-cell", Crosses(r) ? " crosses-domain" : "", "\" data-rank=\"", r.rank,
                      "\" data-stage=\"", stage, "\"", by_group ? absl::StrCat(" data-group=\"", r.group, "\"") : "",
                      " x=\"", Num(g.X(row, col)), "\" y=\"", Num(g.Y(row)), "\" width=\"", Num(g.cell), "\" height=\"",
                      Num(g.cell), "\" fill=\"", fill, "\" stroke=\"#ffffff\" stroke-width=\"", Num(stroke), "\"");
      if (!tooltips) {
        absl::StrAppend(&out, "/>\n");
        continue;
      }
      std::string tip = absl::StrCat("rank ", r.rank, ": node ", r.node, " GPU ", r.local_gpu, ", stage ", stage);
      if (by_group) absl::StrAppend(&tip, ", ", KindLabel(figure), " group ", r.group);
      if (r.tp_group >= 0) absl::StrAppend(&tip, ", TP group ", r.tp_group);
      if (r.ep_group >= 0) absl::StrAppend(&tip, ", EP group ", r.ep_group);
      if (r.tp_crosses_domain) absl::StrAppend(&tip, " (TP group leaves the NVLink domain)");
      if (r.ep_crosses_domain) absl::StrAppend(&tip, " (EP group leaves the NVLink domain)");
      absl::StrAppend(&out, "><title>", Esc(tip), "</title></rect>\n");
    }
  }
  return out;
}

// Rank numbers centred in the cells, when they fit at 7 px or more.
std::string RankNumbersSvg(const PlanFigure& figure, const Grid& g) {
  std::string out;
  int64_t max_rank = 0;
  for (const FigureRank& r : figure.ranks) max_rank = std::max(max_rank, r.rank);
  const double digits = static_cast<double>(absl::StrCat(max_rank).size());
  const double font = std::min({11.0, (g.cell - 6) / (0.6 * digits), g.cell * 0.45});
  if (font < 7) return out;
  absl::StrAppend(&out, "<g class=\"rank-numbers\" font-size=\"", Num(font), "\" text-anchor=\"middle\" fill=\"", kInk,
                  "\" pointer-events=\"none\">\n");
  for (int row = 0; row < g.rows; ++row) {
    for (int col = 0; col < g.cols; ++col) {
      const int s = g.At(row, col);
      if (s < 0) continue;
      absl::StrAppend(&out, Text(g.X(row, col) + g.cell / 2, g.Y(row) + g.cell / 2 + font * 0.35,
                                 absl::StrCat(figure.ranks[s].rank)));
    }
  }
  return out + "</g>\n";
}

// "node N" labels left of the rows: every row when rows are 11 px or more
// apart, else every k-th row so that labels stay 20 px apart.
std::string NodeLabelsSvg(const Grid& g) {
  std::string out;
  const double font = std::min(11.0, std::max(8.0, g.cell * 0.6));
  const int every = g.cell >= 11 ? 1 : static_cast<int>(std::ceil(20 / g.cell));
  absl::StrAppend(&out, "<g class=\"node-labels\" font-size=\"", Num(font), "\" text-anchor=\"end\" fill=\"", kMuted,
                  "\">\n");
  for (int row = 0; row < g.rows; ++row) {
    if ((row % g.rows_per_panel) % every != 0) continue;
    const double y = every == 1 ? g.Y(row) + g.cell / 2 + font * 0.35 : g.Y(row) + font * 0.8;
    absl::StrAppend(&out, Text(g.X(row, 0) - 6, y, absl::StrCat("node ", g.node[row])));
  }
  return out + "</g>\n";
}

// Marks on the cells whose TP or EP group leaves the NVLink domain: a red
// corner triangle on cells big enough for a rank number, else a red
// diagonal; counts the marked cells in *crossing.
std::string CrossingMarksSvg(const PlanFigure& figure, const Grid& g, int* crossing) {
  std::string d;
  const bool corner = g.cell >= 14;
  const double m = std::min(3.0, g.cell * 0.15), t = g.cell * 0.38;
  for (int row = 0; row < g.rows; ++row) {
    for (int col = 0; col < g.cols; ++col) {
      const int s = g.At(row, col);
      if (s < 0 || !Crosses(figure.ranks[s])) continue;
      ++*crossing;
      const double x = g.X(row, col), y = g.Y(row), c = g.cell;
      if (corner) {
        absl::StrAppend(&d, "M", Num(x + c - 1 - t), " ", Num(y + 1), "H", Num(x + c - 1), "V", Num(y + 1 + t), "Z");
      } else {
        absl::StrAppend(&d, "M", Num(x + m), " ", Num(y + c - m), "L", Num(x + c - m), " ", Num(y + m));
      }
    }
  }
  if (d.empty()) return "";
  if (corner) return absl::StrCat("<path class=\"domain-mark\" d=\"", d, "\" fill=\"", kRed, "\"/>\n");
  return absl::StrCat("<path class=\"domain-mark\" d=\"", d, "\" fill=\"none\" stroke=\"", kRed,
                      "\" stroke-width=\"1.5\" stroke-linecap=\"round\"/>\n");
}

// The legend swatch of a cell whose group leaves its NVLink domain.
std::string CrossingSwatch(double x, double y) {
  return absl::StrCat(Rect(x, y, 12, 12, "fill=\"#e5e7eb\" rx=\"2\""), "<path d=\"M", Num(x + 5), " ", Num(y), "H",
                      Num(x + 12), "V", Num(y + 7), "Z\" fill=\"", kRed, "\"/>\n");
}

// The NVLink domain (by global GPU index node * gpus_per_node + local) of
// the rank on slot `s`.
int64_t DomainOf(const PlanFigure& figure, const Grid& g, int s) {
  const FigureRank& r = figure.ranks[s];
  return (r.node * g.cols + r.local_gpu) / std::max(1, figure.nvlink_domain);
}

// Thick lines on the cell edges between different NVLink domains, drawn
// when a domain is not one node (and not a single GPU); "" otherwise.
std::string DomainBoundariesSvg(const PlanFigure& figure, const Grid& g) {
  if (figure.nvlink_domain <= 1 || figure.nvlink_domain == g.cols) return "";
  std::string d;
  for (int row = 0; row < g.rows; ++row) {
    for (int col = 0; col < g.cols; ++col) {
      const int s = g.At(row, col);
      if (s < 0) continue;
      const int64_t dom = DomainOf(figure, g, s);
      const int right = g.Neighbour(row, col, 0, 1), down = g.Neighbour(row, col, 1, 0);
      const double x = g.X(row, col), y = g.Y(row), c = g.cell;
      if (right >= 0 && DomainOf(figure, g, right) != dom) {
        absl::StrAppend(&d, "M", Num(x + c), " ", Num(y - 2), "V", Num(y + c + 2));
      }
      if (down >= 0 && DomainOf(figure, g, down) != dom) {
        absl::StrAppend(&d, "M", Num(x - 2), " ", Num(y + c), "H", Num(x + c + 2));
      }
    }
  }
  if (d.empty()) return "";
  return absl::StrCat("<path class=\"domain-boundary\" d=\"", d, "\" fill=\"none\" stroke=\"", kDomainColor,
                      "\" stroke-width=\"3\"/>\n");
}

// The stage (or group) colours, TP/EP outlines, domain boundary and
// crossing entries; only the stages of the ranks drawn are listed.
void RankMapLegend(const PlanFigure& figure, const Grid& g, bool tp, bool ep, bool boundaries, int crossing,
                   Legend* legend) {
  if (!figure.group_kind.empty()) {
    legend->Note(absl::StrCat("colour = ", KindLabel(figure), " group (", figure.group_count, " groups of ",
                              figure.group_size, " ranks", figure.group_count > 12 ? "; colours repeat" : "",
                              "); outlined: rank 0's ", KindLabel(figure), " group"),
                 kInk);
  } else {
    std::vector<int> drawn;
    for (int s : g.slot) {
      if (s >= 0) drawn.push_back(StageOf(figure.ranks[s]));
    }
    std::sort(drawn.begin(), drawn.end());
    drawn.erase(std::unique(drawn.begin(), drawn.end()), drawn.end());
    StageLegend(drawn, legend);
  }
  if (tp) legend->Add(OutlineSwatch(kInk, ""), "TP group");
  if (ep) legend->Add(OutlineSwatch(kEpColor, "3 2"), "EP group");
  if (boundaries) {
    legend->Add(LineSwatch(kDomainColor, ""), absl::StrCat("NVLink domain boundary (", figure.nvlink_domain, " GPUs)"));
  }
  const std::string domain = absl::StrCat(std::max(1, figure.nvlink_domain));
  if (crossing > 0) {
    legend->Add(CrossingSwatch,
                absl::StrCat("TP/EP group leaves its NVLink domain of ", domain, " GPUs (", crossing, " ranks)"));
  } else {
    legend->Note(absl::StrCat("Every TP and EP group stays inside its NVLink domain of ", domain, " GPUs."));
  }
}

// The rank map of a summarised world: one cell per node or rack (units),
// nodes grouped by rack with a gap between racks, coloured by pipeline
// stage (a unit holding two stages is split in two halves), units holding
// rank 0's group of group_kind outlined.
Picture SummaryPicture(const PlanFigure& figure, int64_t world) {
  Picture p;
  const bool racks = figure.unit_name == "rack";
  const int64_t n = static_cast<int64_t>(figure.units.size());
  const int64_t per_rack = racks ? 1 : std::max(1, figure.nodes_per_rack);
  const int64_t rack_count = (n + per_rack - 1) / per_rack;
  // Columns: whole racks, about sqrt(2n) cells (twice as wide as tall), at
  // most 64.
  const int64_t wanted = static_cast<int64_t>(std::lround(std::sqrt(2.0 * static_cast<double>(n)) / per_rack));
  const int64_t racks_per_row =
      std::clamp<int64_t>(wanted, 1, std::max<int64_t>(1, std::min<int64_t>(rack_count, 64 / per_rack)));
  const int64_t cols = racks_per_row * per_rack;
  const int64_t rows = (n + cols - 1) / cols;
  const double gap = racks || per_rack == 1 ? 0 : 4;
  const double cell = std::clamp(std::floor((960.0 - gap * racks_per_row) / cols), 6.0, 28.0);
  const double label_w = 64;
  const std::string sub = absl::StrCat(world, " GPUs = ", n, " ", figure.unit_name, "s of ", figure.gpus_per_unit,
                                       " GPUs; one cell per ", figure.unit_name, ", colour = pipeline stage");
  const double top = Heading(&p.body, "Rank map (summarised)", sub) + 6;
  auto x_of = [&](int64_t i) { return kPad + label_w + (i % cols) * cell + ((i % cols) / per_rack) * gap; };
  auto y_of = [&](int64_t i) { return top + (i / cols) * cell; };
  const auto& palette = StagePalette();
  std::vector<int> drawn;
  std::string cells, outline;
  int64_t in_group = 0;
  for (int64_t i = 0; i < n; ++i) {
    const FigureUnit& u = figure.units[i];
    const int first = std::max(0, u.first_stage), last = std::max(first, u.last_stage);
    drawn.push_back(first);
    drawn.push_back(last);
    const double x = x_of(i), y = y_of(i);
    std::string tip =
        absl::StrCat(figure.unit_name, " ", i, ": ranks ", u.first_rank, "-", u.first_rank + u.ranks - 1,
                     first == last ? absl::StrCat(", stage ", first) : absl::StrCat(", stages ", first, "-", last));
    if (u.in_group) absl::StrAppend(&tip, ", holds ranks of rank 0's ", KindLabel(figure), " group");
    absl::StrAppend(&cells, "<g class=\"unit-cell", u.in_group ? " in-group" : "", "\" data-unit=\"", i,
                    "\" data-stage=\"", first, "\"><title>", Esc(tip), "</title>\n");
    const std::string stroke = absl::StrCat("stroke=\"#ffffff\" stroke-width=\"", cell >= 9 ? "1" : "0.5", "\"");
    if (first == last) {
      absl::StrAppend(&cells,
                      Rect(x, y, cell, cell, absl::StrCat("fill=\"", palette[first % palette.size()], "\" ", stroke)));
    } else {
      absl::StrAppend(
          &cells, Rect(x, y, cell / 2, cell, absl::StrCat("fill=\"", palette[first % palette.size()], "\"")),
          Rect(x + cell / 2, y, cell / 2, cell, absl::StrCat("fill=\"", palette[last % palette.size()], "\"")),
          Rect(x, y, cell, cell, absl::StrCat("fill=\"none\" ", stroke)));
    }
    absl::StrAppend(&cells, "</g>\n");
    if (u.in_group) {
      ++in_group;
      const double m = std::min(2.0, cell * 0.15);
      absl::StrAppend(&outline, "M", Num(x + m), " ", Num(y + m), "H", Num(x + cell - m), "V", Num(y + cell - m), "H",
                      Num(x + m), "Z");
    }
  }
  // Row labels: the first unit of every row (every k-th row when cells are small).
  const int every = cell >= 20 ? 1 : static_cast<int>(std::ceil(20 / cell));
  std::string labels =
      absl::StrCat("<g class=\"node-labels\" font-size=\"", Num(std::min(11.0, std::max(8.0, cell * 0.6))),
                   "\" text-anchor=\"end\" fill=\"", kMuted, "\">\n");
  for (int64_t r = 0; r < rows; r += every) {
    absl::StrAppend(&labels, Text(kPad + label_w - 6, top + r * cell + std::min(cell, 14.0) * 0.8,
                                  absl::StrCat(figure.unit_name, " ", r * cols)));
  }
  absl::StrAppend(&labels, "</g>\n");
  absl::StrAppend(&p.body, labels, cells);
  if (!outline.empty()) {
    absl::StrAppend(&p.body, "<path class=\"group-outline\" d=\"", outline, "\" fill=\"none\" stroke=\"", kInk,
                    "\" stroke-width=\"", cell >= 14 ? "2.5" : "1.5", "\"/>\n");
  }
  const double width = std::max(label_w + cols * cell + racks_per_row * gap, 560.0);
  double y = top + rows * cell + 14;
  Legend legend(kPad, y, width);
  std::sort(drawn.begin(), drawn.end());
  drawn.erase(std::unique(drawn.begin(), drawn.end()), drawn.end());
  StageLegend(drawn, &legend);
  if (!figure.group_kind.empty()) {
    legend.Add(OutlineSwatch(kInk, ""), absl::StrCat("holds rank 0's ", KindLabel(figure), " group"));
    const int64_t racks_spanned = [&] {
      if (racks) return in_group;
      std::vector<bool> seen(rack_count, false);
      int64_t c = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (figure.units[i].in_group && !seen[i / per_rack]) {
          seen[i / per_rack] = true;
          ++c;
        }
      }
      return c;
    }();
    legend.Note(
        absl::StrCat(KindLabel(figure), " groups: ", figure.group_count, " of ", figure.group_size,
                     " ranks; rank 0's spans ", in_group, " ", figure.unit_name, in_group == 1 ? "" : "s",
                     racks ? "" : absl::StrCat(" in ", racks_spanned, " rack", racks_spanned == 1 ? "" : "s"), "."),
        kInk);
  } else {
    legend.Note("Pick a group kind (TP, CP, EP, DP, PP) to see where rank 0's group sits.");
  }
  if (!figure.rack_note.empty()) legend.Note(figure.rack_note);
  absl::StrAppend(&p.body, "<g class=\"legend\">\n", legend.Body(), "</g>\n");
  p.width = kPad * 2 + std::max(width, legend.Widest());
  p.height = legend.Bottom() + kPad;
  return p;
}

// The rank map picture.
Picture RankMapPicture(const PlanFigure& figure) {
  const int64_t world = std::max<int64_t>(figure.world_size, figure.ranks.size());
  const int gpn = std::max(1, figure.gpus_per_node);
  const int64_t nodes = (world + gpn - 1) / gpn;
  if (!figure.units.empty()) return SummaryPicture(figure, world);
  Picture p;
  const double top =
      Heading(&p.body, "Rank map",
              absl::StrCat(world, " GPUs = ", nodes, " nodes x ", gpn, " GPUs; NVLink domain ",
                           std::max(1, figure.nvlink_domain), " GPUs; colour = ",
                           figure.group_kind.empty() ? "pipeline stage" : absl::StrCat(KindLabel(figure), " group"))) +
      6;
  const Grid g = BuildGrid(figure, top);
  if (g.rows == 0) {
    Picture none = NoData("Rank map");
    return none;
  }
  const bool by_group = !figure.group_kind.empty();
  const std::vector<int64_t> tp = GroupKeys(figure, g, false), ep = GroupKeys(figure, g, true);
  const std::string tp_d = by_group ? "" : OutlinePath(g, tp, std::min(1.5, g.cell * 0.1));
  const std::string ep_d = by_group ? "" : OutlinePath(g, ep, std::min(4.5, g.cell * 0.22));
  std::string group_d;
  if (by_group && !figure.ranks.empty() && figure.ranks[0].group >= 0) {
    std::vector<int64_t> first(figure.ranks.size(), -1);
    for (size_t i = 0; i < figure.ranks.size(); ++i) {
      if (figure.ranks[i].group == figure.ranks[0].group) first[i] = 0;
    }
    group_d = OutlinePath(g, first, std::min(1.5, g.cell * 0.1));
  }
  const std::string boundaries = DomainBoundariesSvg(figure, g);
  int crossing = 0;
  absl::StrAppend(&p.body, NodeLabelsSvg(g), CellsSvg(figure, g), CrossingMarksSvg(figure, g, &crossing),
                  RankNumbersSvg(figure, g), boundaries);
  if (!tp_d.empty()) {
    absl::StrAppend(&p.body, "<path class=\"tp-outline\" d=\"", tp_d, "\" fill=\"none\" stroke=\"", kInk,
                    "\" stroke-width=\"", g.cell >= 14 ? "2" : "1", "\" stroke-linecap=\"square\"/>\n");
  }
  if (!ep_d.empty()) {
    absl::StrAppend(&p.body, "<path class=\"ep-outline\" d=\"", ep_d, "\" fill=\"none\" stroke=\"", kEpColor,
                    "\" stroke-width=\"", g.cell >= 14 ? "2" : "1", "\" stroke-dasharray=\"4 3\"/>\n");
  }
  if (!group_d.empty()) {
    absl::StrAppend(&p.body, "<path class=\"group-outline\" d=\"", group_d, "\" fill=\"none\" stroke=\"", kInk,
                    "\" stroke-width=\"", g.cell >= 14 ? "3" : "2", "\" stroke-linecap=\"square\"/>\n");
  }
  double y = top + g.Height() + 12;
  if (figure.ranks_truncated || static_cast<int64_t>(figure.ranks.size()) < world) {
    absl::StrAppend(
        &p.body, Text(kPad, y + 10, absl::StrCat("Showing the first ", figure.ranks.size(), " of ", world, " ranks."),
                      absl::StrCat("class=\"truncated-note\" fill=\"", kMuted, "\"")));
    y += 22;
  }
  const double width = std::max(g.Width(), 560.0);
  Legend legend(kPad, y, width);
  RankMapLegend(figure, g, !tp_d.empty(), !ep_d.empty(), !boundaries.empty(), crossing, &legend);
  absl::StrAppend(&p.body, "<g class=\"legend\">\n", legend.Body(), "</g>\n");
  p.width = kPad * 2 + std::max(width, legend.Widest());
  p.height = legend.Bottom() + kPad;
  return p;
}

// ------------------------------------------------------------------ memory

// One memory part of a stage: its class suffix, legend label and colour.
struct MemoryKind {
  const char* kind;
  const char* label;
  const char* colour;
};

constexpr MemoryKind kMemoryKinds[] = {{"weights", "weights", "#3b82f6"},
                                       {"gradients", "gradients", "#f59e0b"},
                                       {"optimizer", "optimizer state", "#10b981"},
                                       {"activations", "activations", "#a78bfa"},
                                       {"overhead", "overhead", "#9ca3af"}};

// The stage's parts in kMemoryKinds order, bytes (cleaned).
std::vector<double> StageParts(const FigureStage& s) {
  return {CleanBytes(s.weight_bytes), CleanBytes(s.grad_bytes), CleanBytes(s.optimizer_bytes),
          CleanBytes(s.activation_bytes), CleanBytes(s.overhead_bytes)};
}

// A stage's total: total_bytes, or the sum of its parts when that is larger.
double StageTotal(const FigureStage& s) {
  double sum = 0;
  for (double v : StageParts(s)) sum += v;
  return std::max(sum, CleanBytes(s.total_bytes));
}

// A "nice" axis step (1, 2, 2.5 or 5 times a power of ten) giving about
// `ticks` intervals up to `max` (> 0).
double NiceStep(double max, int ticks) {
  const double raw = max / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
}

// The y axis: gridlines and GiB labels every `step` GiB up to `top_gib`.
std::string MemoryAxisSvg(double x0, double x1, double y_base, double plot_h, double top_gib, double step) {
  std::string out = "<g class=\"y-axis\">\n";
  for (int i = 0; i * step <= top_gib + 1e-9; ++i) {
    const double y = y_base - i * step / top_gib * plot_h;
    absl::StrAppend(
        &out, Line(x0, y, x1, y, absl::StrCat("stroke=\"", i == 0 ? "#9ca3af" : kGrid, "\"")),
        Text(x0 - 6, y + 4, Num(i * step), absl::StrCat("text-anchor=\"end\" font-size=\"11\" fill=\"", kMuted, "\"")));
  }
  const double mid = y_base - plot_h / 2;
  absl::StrAppend(&out, Text(kPad + 10, mid, "GiB per GPU",
                             absl::StrCat("text-anchor=\"middle\" font-size=\"11\" fill=\"", kMuted,
                                          "\" transform=\"rotate(-90 ", Num(kPad + 10), " ", Num(mid), ")\"")));
  return out + "</g>\n";
}

// Layout of the memory chart's plot area.
struct MemoryLayout {
  double x0, slot, bar_w, y_base, plot_h, top_gib;
};

// One <g class="stage-bar"> for stage `i`: its segments bottom-up, an
// outline (red when over capacity, dark for the peak stage) and labels.
std::string StageBarSvg(const PlanFigure& figure, int i, const MemoryLayout& m) {
  const FigureStage& s = figure.stages[i];
  const double total = StageTotal(s);
  const bool peak = s.pp_rank == figure.peak_pp_rank;
  const bool over = figure.capacity_bytes > 0 && total > CleanBytes(figure.capacity_bytes);
  const double x = m.x0 + i * m.slot + (m.slot - m.bar_w) / 2;
  auto height_of = [&](double bytes) { return bytes / kGiB / m.top_gib * m.plot_h; };
  std::string tip = absl::StrCat("stage ", s.pp_rank, ": ", GiB(total), " GiB");
  std::string out;
  double y = m.y_base;
  const std::vector<double> parts = StageParts(s);
  for (size_t k = 0; k < parts.size(); ++k) {
    absl::StrAppend(&tip, absl::StrCat(k == 0 ? " (" : ", ", kMemoryKinds[k].label, " ", GiB(parts[k])),
                    k + 1 == parts.size() ? ")" : "");
    if (parts[k] <= 0) continue;
    const double h = height_of(parts[k]);
    y -= h;
    absl::StrAppend(&out, Rect(x, y, m.bar_w, h,
                               absl::StrCat("class=\"segment segment-", kMemoryKinds[k].kind, "\" fill=\"",
                                            kMemoryKinds[k].colour, "\"")));
  }
  const double bar_top = m.y_base - height_of(total);
  if (over || peak) {
    absl::StrAppend(&out,
                    Rect(x, bar_top, m.bar_w, m.y_base - bar_top,
                         absl::StrCat("class=\"", over ? "over-capacity" : "peak-outline", "\" fill=\"none\" stroke=\"",
                                      over ? kRed : kInk, "\" stroke-width=\"", over ? "2.5" : "1.5", "\"")));
  }
  const std::string weight = peak ? " font-weight=\"700\"" : "";
  const std::string colour = over ? kRed : kInk;
  if (m.slot >= 34 || peak) {
    absl::StrAppend(&out, Text(x + m.bar_w / 2, bar_top - 6, GiB(total),
                               absl::StrCat("class=\"stage-total\" text-anchor=\"middle\" font-size=\"11\" fill=\"",
                                            colour, "\"", weight)));
  }
  if (peak && m.slot >= 34) {
    absl::StrAppend(&out, Text(x + m.bar_w / 2, bar_top - 20, "peak",
                               absl::StrCat("text-anchor=\"middle\" font-size=\"10\" fill=\"", kMuted, "\"")));
  }
  const int every = std::max(1, static_cast<int>(std::ceil(28 / m.slot)));
  if (i % every == 0 || peak) {
    absl::StrAppend(&out, Text(m.x0 + i * m.slot + m.slot / 2, m.y_base + 16,
                               m.slot >= 52 ? absl::StrCat("stage ", s.pp_rank) : absl::StrCat(s.pp_rank),
                               absl::StrCat("text-anchor=\"middle\" font-size=\"11\"", weight)));
  }
  return absl::StrCat("<g class=\"stage-bar\" data-stage=\"", s.pp_rank, "\"><title>", Esc(tip), "</title>\n", out,
                      "</g>\n");
}

// The dashed HBM capacity line with its "HBM 80 GiB" label.
std::string CapacityLineSvg(const PlanFigure& figure, const MemoryLayout& m, double x1) {
  const double cap = CleanBytes(figure.capacity_bytes);
  if (cap <= 0) return "";
  const double y = m.y_base - cap / kGiB / m.top_gib * m.plot_h;
  return absl::StrCat(
      Line(m.x0, y, x1, y,
           absl::StrCat("class=\"capacity-line\" stroke=\"", kRed, "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"")),
      Text(x1, y - 5, absl::StrCat("HBM ", GiB(cap), " GiB"),
           absl::StrCat("class=\"capacity-label\" text-anchor=\"end\" font-size=\"11\" fill=\"", kRed, "\"")));
}

// The memory-per-stage picture.
Picture MemoryPicture(const PlanFigure& figure) {
  constexpr char kHeading[] = "Memory per GPU by pipeline stage";
  if (figure.stages.empty()) return NoData(kHeading);
  Picture p;
  const double cap = CleanBytes(figure.capacity_bytes);
  double max_total = cap;
  bool any_over = false;
  for (const FigureStage& s : figure.stages) {
    max_total = std::max(max_total, StageTotal(s));
    any_over = any_over || (cap > 0 && StageTotal(s) > cap);
  }
  const double top = Heading(&p.body, kHeading,
                             cap > 0 ? absl::StrCat("GiB per GPU; dashed line = HBM capacity (", GiB(cap), " GiB)")
                                     : "GiB per GPU; HBM capacity unknown");
  const int n = static_cast<int>(figure.stages.size());
  MemoryLayout m;
  m.x0 = kPad + 52;
  const double plot_w = std::clamp(n * 80.0, 440.0, 860.0);
  m.slot = plot_w / n;
  m.bar_w = std::min(48.0, m.slot * 0.62);
  m.plot_h = 260;
  m.y_base = top + 34 + m.plot_h;
  const double max_gib = std::max(max_total / kGiB, 1.0) * 1.08;
  const double step = NiceStep(max_gib, 5);
  m.top_gib = std::ceil(max_gib / step) * step;
  const double x1 = m.x0 + plot_w;
  absl::StrAppend(&p.body, MemoryAxisSvg(m.x0, x1, m.y_base, m.plot_h, m.top_gib, step));
  for (int i = 0; i < n; ++i) {
    if (figure.stages[i].pp_rank == figure.peak_pp_rank) {
      absl::StrAppend(&p.body, Rect(m.x0 + i * m.slot, m.y_base - m.plot_h, m.slot, m.plot_h,
                                    "class=\"peak-highlight\" fill=\"#fef3c7\" opacity=\"0.7\""));
    }
  }
  for (int i = 0; i < n; ++i) absl::StrAppend(&p.body, StageBarSvg(figure, i, m));
  absl::StrAppend(&p.body, CapacityLineSvg(figure, m, x1));
  absl::StrAppend(&p.body, Text(m.x0 + plot_w / 2, m.y_base + 34, "pipeline stage",
                                absl::StrCat("text-anchor=\"middle\" font-size=\"11\" fill=\"", kMuted, "\"")));
  Legend legend(kPad, m.y_base + 48, std::max(x1 - kPad, 560.0));
  for (const MemoryKind& k : kMemoryKinds) legend.Add(FillSwatch(k.colour), k.label);
  if (cap > 0) legend.Add(LineSwatch(kRed, "4 2"), absl::StrCat("HBM ", GiB(cap), " GiB"));
  legend.Add(FillSwatch("#fef3c7"), absl::StrCat("peak stage ", figure.peak_pp_rank));
  if (any_over) legend.Add(OutlineSwatch(kRed, ""), "over capacity");
  absl::StrAppend(&p.body, "<g class=\"legend\">\n", legend.Body(), "</g>\n");
  p.width = std::max(x1, kPad + legend.Widest()) + kPad;
  p.height = legend.Bottom() + kPad;
  return p;
}

// ------------------------------------------------------------------ step time

// A fixed colour for the usual part names, else one from a palette by index.
std::string PartColour(const std::string& name, size_t index) {
  static const auto* known = new std::map<std::string, std::string>{
      {"compute", "#3b82f6"},   {"gemm", "#2563eb"},    {"attention", "#60a5fa"}, {"elementwise", "#93c5fd"},
      {"logits", "#1d4ed8"},    {"moe", "#0ea5e9"},     {"recompute", "#6366f1"}, {"tp comm", "#f59e0b"},
      {"cp comm", "#eab308"},   {"ep comm", "#ec4899"}, {"dp comm", "#10b981"},   {"pp comm", "#14b8a6"},
      {"fsdp comm", "#84cc16"}, {"bubble", "#f87171"},  {"optimizer", "#8b5cf6"}, {"overhead", "#9ca3af"}};
  const auto it = known->find(name);
  if (it != known->end()) return it->second;
  static const char* const kOthers[] = {"#fb923c", "#22d3ee", "#a3e635", "#f472b6", "#c084fc", "#facc15"};
  return kOthers[index % (sizeof(kOthers) / sizeof(kOthers[0]))];
}

// `name` lower-cased with every character but [a-z0-9_] as '-', for a class.
std::string ClassName(absl::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '-');
  }
  return out;
}

// The step-time picture.
Picture StepTimePicture(const PlanFigure& figure) {
  constexpr char kHeading[] = "Step time";
  std::vector<std::pair<const FigureTimePart*, double>> parts;
  double sum = 0;
  for (const FigureTimePart& part : figure.step_parts) {
    const double s = Clean(part.seconds);
    if (s <= 0) continue;
    parts.push_back({&part, s});
    sum += s;
  }
  if (parts.empty()) return NoData(kHeading);
  const double step = Clean(figure.step_time_s) > 0 ? Clean(figure.step_time_s) : sum;
  Picture p;
  const double top = Heading(&p.body, absl::StrCat(kHeading, ": ", Seconds(step), " per iteration"),
                             "where one training step's time goes (share of the parts' sum)");
  const double bar_w = 820, bar_h = 40, x0 = kPad, y0 = top + 6;
  double x = x0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& name = parts[i].first->name;
    const double w = parts[i].second / sum * bar_w;
    const std::string tip = absl::StrCat(name, ": ", Seconds(parts[i].second), " (", Share(parts[i].second, sum), ")");
    absl::StrAppend(&p.body, "<rect class=\"time-part time-part-", ClassName(name), "\" x=\"", Num(x), "\" y=\"",
                    Num(y0), "\" width=\"", Num(w), "\" height=\"", Num(bar_h), "\" fill=\"", PartColour(name, i),
                    "\" stroke=\"#ffffff\" stroke-width=\"1\"><title>", Esc(tip), "</title></rect>\n");
    if (w >= TextWidth(name, 11) + 8) {
      absl::StrAppend(&p.body,
                      Text(x + w / 2, y0 + bar_h / 2 + 4, name,
                           "text-anchor=\"middle\" font-size=\"11\" fill=\"#111827\" pointer-events=\"none\""));
    }
    x += w;
  }
  const std::string muted = absl::StrCat("font-size=\"11\" fill=\"", kMuted, "\"");
  absl::StrAppend(&p.body, Text(x0, y0 + bar_h + 16, "0 s", muted),
                  Text(x0 + bar_w, y0 + bar_h + 16, Seconds(sum), absl::StrCat("text-anchor=\"end\" ", muted)));
  Legend legend(kPad, y0 + bar_h + 32, bar_w);
  for (size_t i = 0; i < parts.size(); ++i) {
    legend.Add(
        FillSwatch(PartColour(parts[i].first->name, i)),
        absl::StrCat(parts[i].first->name, " ", Seconds(parts[i].second), " (", Share(parts[i].second, sum), ")"));
  }
  legend.Note(absl::StrCat("Total step time ", Seconds(step), "."), kInk);
  absl::StrAppend(&p.body, "<g class=\"legend\">\n", legend.Body(), "</g>\n");
  p.width = kPad * 2 + bar_w;
  p.height = legend.Bottom() + kPad;
  return p;
}

}  // namespace

std::string RankMapSvg(const PlanFigure& figure) {
  return Document(RankMapPicture(figure), Titled(figure, "rank map"));
}

std::string MemorySvg(const PlanFigure& figure) {
  return Document(MemoryPicture(figure), Titled(figure, "memory per pipeline stage"));
}

std::string StepTimeSvg(const PlanFigure& figure) {
  return Document(StepTimePicture(figure), Titled(figure, "step time"));
}

std::string PlanSvg(const PlanFigure& figure) {
  const Picture pictures[] = {RankMapPicture(figure), MemoryPicture(figure), StepTimePicture(figure)};
  const std::string title = figure.title.empty() ? "parplan plan" : figure.title;
  double width = kPad * 2 + TextWidth(title, 17), y = kPad + 30;
  for (const Picture& picture : pictures) width = std::max(width, picture.width);
  std::string body = Text(kPad, kPad + 18, title, "class=\"plan-title\" font-size=\"17\" font-weight=\"700\"");
  const char* const kClasses[] = {"rank-map", "memory", "step-time"};
  for (int i = 0; i < 3; ++i) {
    absl::StrAppend(&body, "<g class=\"", kClasses[i], "\" transform=\"translate(0 ", Num(y), ")\">\n",
                    pictures[i].body, "</g>\n");
    y += pictures[i].height;
    if (i < 2)
      absl::StrAppend(&body,
                      Line(kPad, y, width - kPad, y, absl::StrCat("class=\"separator\" stroke=\"", kGrid, "\"")));
  }
  return absl::StrCat(SvgOpen(width, y, title), body, "</svg>\n");
}

}  // namespace parplan
