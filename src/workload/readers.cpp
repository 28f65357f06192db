#include "taskmap/workload/readers.h"

#include <fmt/format.h>

#include <algorithm>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/text_source.h"

namespace taskmap {
namespace {

using io::LineCursor;

std::int64_t int_field(const LineCursor& cur, std::string_view f, const char* what) {
  auto v = io::parse_int(f);
  if (!v) cur.fail_here(fmt::format("{} '{}' is not an integer", what, f));
  return *v;
}

double volume_field(const LineCursor& cur, std::string_view f) {
  auto v = io::parse_double(f);
  if (!v) cur.fail_here(fmt::format("volume '{}' is not a number", f));
  if (*v < 0) cur.fail_here(fmt::format("volume {} is negative", *v));
  return *v;
}

constexpr std::int64_t kMaxTasks = 1 << 30;

TaskId task_field(const LineCursor& cur, std::string_view f, std::int64_t base, std::int64_t n) {
  const std::int64_t id = int_field(cur, f, "task id");
  // Compared before subtracting: id - base overflows for ids near INT64_MIN.
  if (id < base || id - base >= n) cur.fail_here(fmt::format("task id {} is out of range [{}, {})", id, base, n + base));
  return static_cast<TaskId>(id - base);
}

// Task counts a file states in one header field or one id are held to what its content can
// justify, before anything is allocated for them: beyond kTaskFloor, at most two tasks per
// entry (a line names at most a source and a destination).
constexpr std::uint64_t kTaskFloor = std::uint64_t(1) << 20;

std::string place(const LineCursor& cur, std::size_t line) { return fmt::format("{}:{}", cur.source(), line); }

// Refuses `tasks` tasks (from `what`, e.g. "task id 1073741823", found at `where`) with
// `flows` edge-list entries when they need more than memory_limit().
void check_task_memory(const std::string& where, const std::string& what, std::uint64_t tasks, std::uint64_t flows) {
  check_memory(fmt::format("{}: {}", where, what), CommGraph::estimated_bytes(tasks, flows), fmt::format("{} tasks", tasks));
}

// Refuses `tasks` tasks from `what` when they exceed kTaskFloor and the two per entry that
// `entries` entries can name (sparse ids: a few tasks with huge ids).
void check_task_justified(const std::string& where, const std::string& what, std::uint64_t tasks, std::uint64_t entries,
                          std::string_view entry_noun, std::string_view remedy) {
  const std::uint64_t named = saturating_mul(entries, 2);
  if (tasks <= std::max(named, kTaskFloor)) return;
  fail("{}: {} makes {} tasks, but the file's {} {} name at most {}{}{}", where, what, tasks, entries, entry_noun, named,
       remedy.empty() ? "" : "; ", remedy);
}

std::string strip_compression(std::string name) {
  for (const char* ext : {".xz", ".gz"}) {
    std::string e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
      name.resize(name.size() - e.size());
    }
  }
  return name;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<PatternFormat> pattern_format_from_name(const std::string& name) {
  if (name == "metis") return PatternFormat::Metis;
  if (name == "mtx") return PatternFormat::MatrixMarket;
  if (name == "grf" || name == "scotch") return PatternFormat::Scotch;
  if (name == "edges") return PatternFormat::EdgeList;
  if (name == "dense") return PatternFormat::Dense;
  if (name == "hopbyte") return PatternFormat::Hopbyte;
  return std::nullopt;
}

PatternFormat guess_pattern_format(const std::string& path) {
  const std::string name = strip_compression(path);
  const std::string base = name.substr(name.find_last_of('/') == std::string::npos ? 0 : name.find_last_of('/') + 1);
  if (ends_with(name, ".graph") || ends_with(name, ".metis")) return PatternFormat::Metis;
  if (ends_with(name, ".mtx")) return PatternFormat::MatrixMarket;
  if (ends_with(name, ".grf")) return PatternFormat::Scotch;
  if (ends_with(name, ".csv")) return PatternFormat::Dense;
  if (base.find("hopbyte") != std::string::npos) return PatternFormat::Hopbyte;
  return PatternFormat::EdgeList;
}

CommGraph read_pattern_file(const std::string& path, PatternFormat format, std::uint32_t min_tasks) {
  CommGraph g;
  switch (format) {
    case PatternFormat::Metis: g = read_metis(path); break;
    case PatternFormat::MatrixMarket: g = read_matrix_market(path); break;
    case PatternFormat::Scotch: g = read_scotch_grf(path); break;
    case PatternFormat::EdgeList: g = read_edge_list(path, min_tasks); break;
    case PatternFormat::Dense: g = read_dense_matrix(path); break;
    case PatternFormat::Hopbyte: g = read_hopbyte_trace(path, min_tasks).graph; break;
  }
  if (g.num_tasks() < min_tasks) fail("{}: has {} tasks, fewer than tasks={}", path, g.num_tasks(), min_tasks);
  // Loads, hop-bytes and their sums multiply and add volumes: they must stay finite.
  constexpr double kMostTotalVolume = 1e300;
  if (!(g.total_volume() <= kMostTotalVolume)) {
    fail("{}: the volumes add up to {:.3g}, more than taskmap sums ({:.0e}): scale them down", path, g.total_volume(),
         kMostTotalVolume);
  }
  return g;
}

CommGraph read_metis(const std::string& path) {
  LineCursor cur(path, io::read_text_file(path));
  auto header = cur.next_content_line("%");
  if (!header) cur.fail_at_end("missing the header line 'n m [fmt [ncon]]'");
  auto h = io::split_fields(*header);
  if (h.size() < 2 || h.size() > 4) cur.fail_here("header must be 'n m [fmt [ncon]]'");
  const std::int64_t n = int_field(cur, h[0], "vertex count"), m = int_field(cur, h[1], "edge count");
  if (n <= 0 || n > kMaxTasks) cur.fail_here(fmt::format("vertex count {} is out of range", n));
  if (m < 0) cur.fail_here(fmt::format("edge count {} is negative", m));
  // A simple graph on n vertices has at most n(n-1)/2 edges (n <= 2^30: no overflow).
  if (static_cast<std::uint64_t>(m) > static_cast<std::uint64_t>(n) * (n - 1) / 2) {
    cur.fail_here(fmt::format("edge count {} is too large: {} vertices have at most {} edges", m, n, n * (n - 1) / 2));
  }
  const std::size_t header_line = cur.line_number();
  check_task_memory(place(cur, header_line), fmt::format("vertex count {}", n), static_cast<std::uint64_t>(n), 0);
  std::string fmt_digits = h.size() >= 3 ? std::string(h[2]) : "0";
  if (fmt_digits.size() > 3 || fmt_digits.find_first_not_of("01") != std::string::npos) {
    cur.fail_here(fmt::format("fmt '{}' must be up to three 0/1 digits", fmt_digits));
  }
  fmt_digits.insert(0, 3 - fmt_digits.size(), '0');
  const bool vsize = fmt_digits[0] == '1', vweight = fmt_digits[1] == '1', eweight = fmt_digits[2] == '1';
  const std::int64_t ncon = h.size() == 4 ? int_field(cur, h[3], "ncon") : (vweight ? 1 : 0);
  if (ncon < 0 || (h.size() == 4 && !vweight)) cur.fail_here("ncon given without vertex weights in fmt");
  const std::size_t skip = (vsize ? 1 : 0) + (vweight ? static_cast<std::size_t>(ncon) : 0);
  std::vector<CommEdge> edges;
  std::int64_t entries = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    // Vertex lines may be empty (isolated vertices), so comments are the only lines skipped.
    auto line = cur.next_content_line("%", false);
    if (!line) cur.fail_at_end(fmt::format("expected {} vertex lines, found {}", n, v));
    auto f = io::split_fields(*line);
    if (f.size() < skip) cur.fail_here("too few vertex weight fields");
    const std::size_t step = eweight ? 2 : 1;
    if ((f.size() - skip) % step != 0) cur.fail_here("neighbour without its edge weight");
    for (std::size_t i = skip; i < f.size(); i += step) {
      TaskId u = task_field(cur, f[i], 1, n);
      if (u == v) cur.fail_here(fmt::format("self-loop on vertex {}", v + 1));
      double w = eweight ? volume_field(cur, f[i + 1]) : 1.0;
      edges.push_back({static_cast<TaskId>(v), u, w});
      ++entries;
    }
  }
  if (cur.next_content_line("%")) cur.fail_here(fmt::format("more than the {} vertex lines the header announces", n));
  // Each edge is listed at both of its ends; entries / 2 cannot overflow where 2 * m can.
  if (entries % 2 != 0 || entries / 2 != m) {
    fail("{}: header announces {} edges but the adjacency lists hold {} entries, not twice the edge count (each edge "
         "is listed at both of its ends)",
         place(cur, header_line), m, entries);
  }
  check_task_memory(place(cur, header_line), fmt::format("vertex count {}", n), static_cast<std::uint64_t>(n), edges.size());
  return CommGraph::from_edges(static_cast<std::uint32_t>(n), std::move(edges));
}

CommGraph read_matrix_market(const std::string& path) {
  const std::string text = io::read_text_file(path);
  LineCursor cur(path, text);
  auto banner = cur.next_content_line("");
  if (!banner || banner->rfind("%%MatrixMarket", 0) != 0) cur.fail_here("missing '%%MatrixMarket' banner");
  auto b = io::split_fields(*banner);
  auto lower = [](std::string_view s) {
    std::string r(s);
    std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
    return r;
  };
  if (b.size() != 5 || lower(b[1]) != "matrix") cur.fail_here("banner must be '%%MatrixMarket matrix FORMAT FIELD SYMMETRY'");
  const std::string layout = lower(b[2]), field = lower(b[3]), symmetry = lower(b[4]);
  if (layout != "coordinate" && layout != "array") cur.fail_here(fmt::format("unsupported format '{}'", layout));
  if (field != "real" && field != "integer" && field != "pattern" && field != "double") {
    cur.fail_here(fmt::format("unsupported field '{}' (real, integer or pattern)", field));
  }
  if (symmetry != "general" && symmetry != "symmetric") {
    cur.fail_here(fmt::format("unsupported symmetry '{}' (general or symmetric)", symmetry));
  }
  if (layout == "array" && field == "pattern") cur.fail_here("array format cannot be 'pattern'");
  auto size_line = cur.next_content_line("%");
  if (!size_line) cur.fail_at_end("missing the size line");
  auto s = io::split_fields(*size_line);
  if (s.size() != (layout == "coordinate" ? 3u : 2u)) cur.fail_here("malformed size line");
  const std::int64_t rows = int_field(cur, s[0], "row count"), cols = int_field(cur, s[1], "column count");
  if (rows != cols) cur.fail_here(fmt::format("matrix is {}x{}; a communication matrix must be square", rows, cols));
  if (rows <= 0 || rows > kMaxTasks) cur.fail_here(fmt::format("size {} is out of range", rows));
  const std::size_t size_line_number = cur.line_number();
  const std::string size_what = fmt::format("size {}", rows);
  check_task_memory(place(cur, size_line_number), size_what, static_cast<std::uint64_t>(rows), 0);
  std::vector<CommEdge> edges;
  const bool symmetric = symmetry == "symmetric";
  if (layout == "coordinate") {
    const std::int64_t nnz = int_field(cur, s[2], "entry count");
    for (std::int64_t k = 0; k < nnz; ++k) {
      auto line = cur.next_content_line("%");
      if (!line) cur.fail_at_end(fmt::format("expected {} entries, found {}", nnz, k));
      auto f = io::split_fields(*line);
      const std::size_t want = field == "pattern" ? 2 : 3;
      if (f.size() != want) cur.fail_here(fmt::format("expected {} fields per entry", want));
      TaskId i = task_field(cur, f[0], 1, rows), j = task_field(cur, f[1], 1, rows);
      double v = field == "pattern" ? 1.0 : volume_field(cur, f[2]);
      edges.push_back({i, j, v});
      if (symmetric && i != j) edges.push_back({j, i, v});
    }
    check_task_justified(place(cur, size_line_number), size_what, static_cast<std::uint64_t>(rows),
                         static_cast<std::uint64_t>(std::max<std::int64_t>(nnz, 0)), "entries", "");
  } else {
    for (std::int64_t j = 0; j < cols; ++j) {
      for (std::int64_t i = symmetric ? j : 0; i < rows; ++i) {
        auto line = cur.next_content_line("%");
        if (!line) cur.fail_at_end(fmt::format("array data ends early"));
        auto f = io::split_fields(*line);
        if (f.size() != 1) cur.fail_here("expected one value per line");
        double v = volume_field(cur, f[0]);
        edges.push_back({static_cast<TaskId>(i), static_cast<TaskId>(j), v});
        if (symmetric && i != j) edges.push_back({static_cast<TaskId>(j), static_cast<TaskId>(i), v});
      }
    }
  }
  if (cur.next_content_line("%")) cur.fail_here("more entries than the size line announces");
  check_task_memory(place(cur, size_line_number), size_what, static_cast<std::uint64_t>(rows), edges.size());
  return CommGraph::from_edges(static_cast<std::uint32_t>(rows), std::move(edges));
}

CommGraph read_scotch_grf(const std::string& path) {
  LineCursor cur(path, io::read_text_file(path));
  auto version = cur.next_content_line("#");
  if (!version || io::split_fields(*version).size() != 1 || int_field(cur, io::split_fields(*version)[0], "version") != 0) {
    cur.fail_here("first line must be the format version '0'");
  }
  auto counts = cur.next_content_line("#");
  if (!counts) cur.fail_at_end("missing 'vertices arcs' line");
  auto c = io::split_fields(*counts);
  if (c.size() != 2) cur.fail_here("expected 'vertices arcs'");
  const std::int64_t n = int_field(cur, c[0], "vertex count"), arcs = int_field(cur, c[1], "arc count");
  if (n <= 0 || n > kMaxTasks) cur.fail_here(fmt::format("vertex count {} is out of range", n));
  const std::string counts_place = place(cur, cur.line_number()), n_what = fmt::format("vertex count {}", n);
  check_task_memory(counts_place, n_what, static_cast<std::uint64_t>(n), 0);
  auto flags_line = cur.next_content_line("#");
  if (!flags_line) cur.fail_at_end("missing 'baseval flags' line");
  auto fl = io::split_fields(*flags_line);
  if (fl.size() != 2 || fl[1].size() != 3 || fl[1].find_first_not_of("01") != std::string_view::npos) {
    cur.fail_here("expected 'baseval flags' with flags of three 0/1 digits, e.g. '0 000'");
  }
  const std::int64_t base = int_field(cur, fl[0], "baseval");
  if (base != 0 && base != 1) cur.fail_here("baseval must be 0 or 1");
  const bool labels = fl[1][0] == '1', eloads = fl[1][1] == '1', vloads = fl[1][2] == '1';
  std::vector<CommEdge> edges;
  std::int64_t seen_arcs = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    auto line = cur.next_content_line("#");
    if (!line) cur.fail_at_end(fmt::format("expected {} vertex lines, found {}", n, v));
    auto f = io::split_fields(*line);
    std::size_t i = (labels ? 1 : 0) + (vloads ? 1 : 0);
    if (f.size() <= i) cur.fail_here("missing vertex degree");
    const std::int64_t degree = int_field(cur, f[i++], "degree");
    const std::size_t step = eloads ? 2 : 1;
    if (degree < 0 || f.size() != i + static_cast<std::size_t>(degree) * step) {
      cur.fail_here(fmt::format("degree {} does not match the {} fields that follow", degree, f.size() - i));
    }
    for (std::int64_t k = 0; k < degree; ++k) {
      double w = eloads ? volume_field(cur, f[i++]) : 1.0;
      TaskId u = task_field(cur, f[i++], base, n);
      edges.push_back({static_cast<TaskId>(v), u, w});
      ++seen_arcs;
    }
  }
  if (seen_arcs != arcs) fail("{}: header announces {} arcs but the vertex lines hold {}", path, arcs, seen_arcs);
  check_task_memory(counts_place, n_what, static_cast<std::uint64_t>(n), edges.size());
  return CommGraph::from_edges(static_cast<std::uint32_t>(n), std::move(edges));
}

namespace {

constexpr std::string_view kProfileHeader = "# taskmap-profile:";
constexpr std::string_view kProfileEnd = "# end of taskmap-profile:";

// A file written by libtaskmap-profile-<mpi>.so: "# taskmap-profile: N ranks ..." first, then
// "src dst bytes messages" lines, then "# end of taskmap-profile: L lines". A copy cut short
// (a crashed run, a full disk) lacks the end line or some data lines, and is refused.
CommGraph read_profile(const std::string& path, std::string text) {
  LineCursor cur(path, std::move(text));
  auto header = cur.next_content_line("");
  const auto h = io::split_fields(*header);
  std::optional<std::int64_t> ranks = h.size() >= 3 ? io::parse_int(h[2]) : std::nullopt;
  if (!ranks) cur.fail_here("expected '# taskmap-profile: N ranks ...'");
  if (*ranks <= 0 || *ranks > kMaxTasks) cur.fail_here(fmt::format("rank count {} is out of range (1 to {})", *ranks, kMaxTasks));
  const std::string header_place = place(cur, cur.line_number()), ranks_what = fmt::format("rank count {}", *ranks);
  check_task_memory(header_place, ranks_what, static_cast<std::uint64_t>(*ranks), 0);
  std::vector<CommEdge> edges;
  std::int64_t data_lines = 0;
  std::optional<std::int64_t> announced;
  while (auto line = cur.next_content_line("")) {
    if (line->starts_with(kProfileEnd)) {
      const auto f = io::split_fields(line->substr(kProfileEnd.size()));
      announced = f.empty() ? std::nullopt : io::parse_int(f[0]);
      if (!announced) cur.fail_here("expected '# end of taskmap-profile: L lines'");
      if (cur.next_content_line("#")) cur.fail_here("data after the profile's end line");
      break;
    }
    if (line->starts_with("#")) continue;
    const auto f = io::split_fields(*line);
    if (f.size() != 4) cur.fail_here(fmt::format("expected 'src dst bytes messages', found {} fields", f.size()));
    const TaskId src = task_field(cur, f[0], 0, *ranks), dst = task_field(cur, f[1], 0, *ranks);
    const double bytes = volume_field(cur, f[2]);
    if (int_field(cur, f[3], "message count") < 0) cur.fail_here("message count is negative");
    edges.push_back({src, dst, bytes});
    ++data_lines;
  }
  if (!announced) {
    fail("{}: truncated profile: no '{} L lines' line after line {} (the run that wrote it did not finish, or the "
         "copy was cut short)",
         path, kProfileEnd, cur.line_number());
  }
  if (*announced != data_lines) {
    fail("{}: truncated profile: its end line announces {} lines but it holds {}", path, *announced, data_lines);
  }
  check_task_justified(header_place, ranks_what, static_cast<std::uint64_t>(*ranks), static_cast<std::uint64_t>(data_lines),
                       "lines", "");
  check_task_memory(header_place, ranks_what, static_cast<std::uint64_t>(*ranks), edges.size());
  return CommGraph::from_edges(static_cast<std::uint32_t>(*ranks), std::move(edges));
}

// The graph of a file whose task count is its largest id + 1 (found on line max_id_line), or
// min_tasks (tasks=N) when more. An id alone justifies its count only within what the entries
// can name; tasks=N is the user's word and is held to memory only.
CommGraph graph_of_ids(const std::string& path, std::int64_t max_id, std::size_t max_id_line, std::uint32_t min_tasks,
                       std::vector<CommEdge> edges, std::string_view id_noun, std::string_view entry_noun) {
  const std::uint64_t by_ids = static_cast<std::uint64_t>(max_id) + 1;
  const std::string id_place = fmt::format("{}:{}", path, max_id_line);
  if (by_ids > min_tasks) {
    check_task_justified(id_place, fmt::format("{} {}", id_noun, max_id), by_ids, edges.size(), entry_noun,
                         "number the tasks densely from 0, or give tasks=N for a job with ranks that never communicate");
  }
  const std::uint64_t n = std::max<std::uint64_t>(by_ids, min_tasks);
  check_task_memory(by_ids >= min_tasks ? id_place : path,
                    by_ids >= min_tasks ? fmt::format("{} {}", id_noun, max_id) : fmt::format("tasks={}", min_tasks), n,
                    edges.size());
  return CommGraph::from_edges(static_cast<std::uint32_t>(n), std::move(edges));
}

}  // namespace

CommGraph read_edge_list(const std::string& path, std::uint32_t min_tasks) {
  std::string text = io::read_text_file(path);
  if (std::string_view(text).starts_with(kProfileHeader)) {
    CommGraph g = read_profile(path, std::move(text));
    if (g.num_tasks() < min_tasks) fail("{}: has {} ranks, fewer than tasks={}", path, g.num_tasks(), min_tasks);
    return g;
  }
  LineCursor cur(path, std::move(text));
  std::vector<CommEdge> edges;
  std::int64_t max_id = -1;
  std::size_t max_id_line = 0;
  while (auto line = cur.next_content_line("#%")) {
    auto f = io::split_fields(*line, true);
    if (f.size() != 3 && f.size() != 4) cur.fail_here("expected 'src dst volume [messages]'");
    std::int64_t s = int_field(cur, f[0], "task id"), d = int_field(cur, f[1], "task id");
    if (s < 0 || d < 0 || s >= kMaxTasks || d >= kMaxTasks) cur.fail_here(fmt::format("task id out of range (0 to {})", kMaxTasks - 1));
    double v = volume_field(cur, f[2]);
    if (f.size() == 4) {
      std::int64_t msgs = int_field(cur, f[3], "message count");
      if (msgs < 0) cur.fail_here("message count is negative");
    }
    if (std::max(s, d) > max_id) {
      max_id = std::max(s, d);
      max_id_line = cur.line_number();
      check_task_memory(place(cur, max_id_line), fmt::format("task id {}", max_id), max_id + 1, edges.size() + 1);
    }
    edges.push_back({static_cast<TaskId>(s), static_cast<TaskId>(d), v});
  }
  if (edges.empty()) fail("{}: no communication edges", path);
  return graph_of_ids(path, max_id, max_id_line, min_tasks, std::move(edges), "task id", "lines");
}

CommGraph read_dense_matrix(const std::string& path) {
  LineCursor cur(path, io::read_text_file(path));
  std::vector<CommEdge> edges;
  std::size_t n = 0, row = 0;
  while (auto line = cur.next_content_line("#%")) {
    auto f = io::split_fields(*line, true);
    if (row == 0) n = f.size();
    if (f.size() != n) cur.fail_here(fmt::format("row has {} values, the first row has {}", f.size(), n));
    if (row >= n) cur.fail_here(fmt::format("more rows than the {} columns; the matrix must be square", n));
    for (std::size_t col = 0; col < n; ++col) {
      double v = volume_field(cur, f[col]);
      if (v > 0) edges.push_back({static_cast<TaskId>(row), static_cast<TaskId>(col), v});
    }
    ++row;
  }
  if (row == 0) fail("{}: empty matrix", path);
  if (row != n) fail("{}: {} rows but {} columns; the matrix must be square", path, row, n);
  return CommGraph::from_edges(static_cast<std::uint32_t>(n), std::move(edges));
}

HopbyteTrace read_hopbyte_trace(const std::string& path, std::uint32_t min_tasks) {
  LineCursor cur(path, io::read_text_file(path));
  HopbyteTrace trace;
  std::vector<CommEdge> edges;
  std::int64_t max_id = -1;
  std::size_t max_id_line = 0;
  while (auto line = cur.next_content_line("#")) {
    auto f = io::split_fields(*line);
    if (f.size() != 4) cur.fail_here("expected 'src dst bytes hops'");
    std::int64_t s = int_field(cur, f[0], "rank"), d = int_field(cur, f[1], "rank");
    if (s < 0 || d < 0 || s >= kMaxTasks || d >= kMaxTasks) cur.fail_here("rank out of range");
    double bytes = volume_field(cur, f[2]);
    std::int64_t hops = int_field(cur, f[3], "hop count");
    if (hops < 0) cur.fail_here("hop count is negative");
    if (std::max(s, d) > max_id) {
      max_id = std::max(s, d);
      max_id_line = cur.line_number();
      check_task_memory(place(cur, max_id_line), fmt::format("rank {}", max_id), max_id + 1, edges.size() + 1);
    }
    trace.records.push_back({static_cast<TaskId>(s), static_cast<TaskId>(d), bytes, static_cast<std::uint32_t>(hops)});
    edges.push_back({static_cast<TaskId>(s), static_cast<TaskId>(d), bytes});
  }
  if (edges.empty()) fail("{}: no records", path);
  trace.graph = graph_of_ids(path, max_id, max_id_line, min_tasks, std::move(edges), "rank", "records");
  return trace;
}

}  // namespace taskmap
