// TiMEr [TiMEr]. The extracted text of the paper lost the
// formulas; this follows the published paper, with these choices (docs/mappers/timer.md):
//  - Label ids are fixed: label k = l_p(router of slot k) . l_e(k), and a task owns one label.
//    A swap exchanges owners, so the label set (and each slot's task count) never changes.
//  - Coco = sum over task pairs of volume x Hamming distance of the l_p parts (hop-bytes on
//    shortest paths); Div = sum of volume x Hamming distance of the l_e parts (Eq. 12).
//    Coco+ prefers lower Coco and, at equal Coco, higher Div. A level flips one digit, so a
//    swap changes either Coco (an l_p digit) or Div (an l_e digit), never both.
//  - Level i of a hierarchy pairs the groups whose labels agree on all digits after the i-th
//    (in the hierarchy's random digit order) and differ in the i-th. Their exchange is carried
//    out on the finest level at once: every label of the one group whose digit-i twin exists
//    in the other swaps owner with that twin, the others keep theirs. That is Algorithm 2's
//    rule (the preferred digit where the label exists, the old digit otherwise) applied level
//    by level, so the gain of each exchange is exact rather than estimated on the coarse graph.
//  - The initial extension numbers the tasks of each router in a seeded random order.
//  - The mapping, Coco (hop-bytes: on a partial cube the Hamming distance of the l_p parts is
//    the hop distance) and the gain of an exchange on an l_p digit come from the shared
//    IncrementalEvaluator; Div, on the extension digits, from the labels.
#include "taskmap/map/refine/timer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>

#include "taskmap/core/error.h"
#include "taskmap/core/progress.h"
#include "taskmap/eval/incremental.h"
#include "taskmap/map/mapper_support.h"

namespace taskmap {
namespace {

using Word = std::uint64_t;

// Label k's digits, one bit each, in rows of `words` words.
struct LabelBits {
  std::uint32_t words = 0;
  std::vector<Word> bits;
  LabelBits(std::size_t count, std::uint32_t digits) : words((digits + 63) / 64), bits(count * words, 0) {}
  const Word* row(std::uint32_t k) const { return bits.data() + std::size_t(k) * words; }
  bool get(std::uint32_t k, std::uint32_t d) const { return (row(k)[d / 64] >> (d % 64)) & 1; }
  void set(std::uint32_t k, std::uint32_t d) { bits[std::size_t(k) * words + d / 64] |= Word{1} << (d % 64); }
};

// The most tasks any slot holds.
std::uint32_t most_on_a_slot(const Mapping& mapping, std::uint32_t slots) {
  std::vector<std::uint32_t> count(slots, 0);
  std::uint32_t most = 1;
  for (SlotId s : mapping.slot_of_task) most = std::max(most, ++count.at(s));
  return most;
}

class LabelSwapper {
 public:
  LabelSwapper(const MappingProblem& problem, const PartialCube& cube, const Mapping& start, std::uint64_t seed)
      : eval_(problem, start, most_on_a_slot(start, problem.machine().num_slots()), IncrementalEvaluator::Track::HopBytes),
        labels_(0, 0) {
    const Machine& machine = problem.machine();
    const std::uint32_t n = problem.graph().num_tasks();
    std::vector<std::vector<TaskId>> on(machine.num_routers);
    for (TaskId t = 0; t < n; ++t) on[machine.router_of_slot(start.slot_of_task[t])].push_back(t);
    std::size_t largest = 0;
    std::mt19937_64 rng(seed);
    for (auto& tasks : on) {
      largest = std::max(largest, tasks.size());
      detail::seeded_shuffle(tasks, rng());  // the initial extension numbering
    }
    p_digits_ = cube.dims();
    e_digits_ = largest <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(largest - 1));
    labels_ = LabelBits(n, p_digits_ + e_digits_);
    slot_of_label_.resize(n);
    owner_.resize(n);
    label_of_.resize(n);
    std::uint32_t k = 0;
    for (RouterId r = 0; r < machine.num_routers; ++r) {
      for (std::uint32_t j = 0; j < on[r].size(); ++j, ++k) {
        for (std::uint32_t d = 0; d < p_digits_; ++d)
          if (cube.bit(r, d)) labels_.set(k, d);
        for (std::uint32_t d = 0; d < e_digits_; ++d)
          if ((j >> d) & 1) labels_.set(k, p_digits_ + d);
        const TaskId t = on[r][j];
        slot_of_label_[k] = start.slot_of_task[t];
        owner_[k] = t;
        label_of_[t] = k;
      }
    }
    moving_.assign(n, 0);
  }

  std::uint32_t digits() const { return p_digits_ + e_digits_; }
  std::uint32_t extension_digits() const { return e_digits_; }

  // Coco and Div of the current labelling (each pair counted once).
  std::pair<double, double> objective() {
    const double coco = eval_.recompute_hop_bytes();
    double div = 0;
    if (e_digits_ == 0) return {coco, div};
    const std::uint32_t words = labels_.words;
    for (TaskId t = 0; t < eval_.num_tasks(); ++t) {
      const Word* a = labels_.row(label_of_[t]);
      const auto partners = eval_.partners(t);
      const auto weights = eval_.weights(t);
      for (std::size_t e = 0; e < partners.size(); ++e) {
        if (partners[e] < t) continue;
        const Word* b = labels_.row(label_of_[partners[e]]);
        std::uint32_t extension = 0;
        for (std::uint32_t w = 0; w < words; ++w)
          extension += static_cast<std::uint32_t>(std::popcount((a[w] ^ b[w]) & ~p_mask(w)));
        div += weights[e] * extension;
      }
    }
    return {coco, div};
  }

  // One hierarchy: digit order[i] is flipped at level i. Returns the exchanges accepted.
  std::uint32_t run_hierarchy(const std::vector<std::uint32_t>& order) {
    const std::uint32_t n = eval_.num_tasks(), levels = digits(), words = (levels + 63) / 64;
    // The labels with their digits in hierarchy order (bit i = digit order[i]), sorted as
    // integers: a group of any level is then a contiguous range.
    permuted_.assign(std::size_t(n) * words, 0);
    for (std::uint32_t k = 0; k < n; ++k)
      for (std::uint32_t i = 0; i < levels; ++i)
        if (labels_.get(k, order[i])) permuted_[std::size_t(k) * words + i / 64] |= Word{1} << (i % 64);
    sorted_.resize(n);
    std::iota(sorted_.begin(), sorted_.end(), 0u);
    std::sort(sorted_.begin(), sorted_.end(), [&](std::uint32_t a, std::uint32_t b) {
      for (std::uint32_t w = words; w-- > 0;) {
        const Word x = permuted_[std::size_t(a) * words + w], y = permuted_[std::size_t(b) * words + w];
        if (x != y) return x < y;
      }
      return false;
    });
    // highest_[p]: the highest digit (in hierarchy order) where sorted labels p and p+1 differ.
    highest_.resize(n > 0 ? n - 1 : 0);
    for (std::uint32_t p = 0; p + 1 < n; ++p) {
      std::uint32_t h = 0;
      for (std::uint32_t w = words; w-- > 0;) {
        const Word x = permuted_[std::size_t(sorted_[p]) * words + w] ^ permuted_[std::size_t(sorted_[p + 1]) * words + w];
        if (x) {
          h = w * 64 + 63 - static_cast<std::uint32_t>(std::countl_zero(x));
          break;
        }
      }
      highest_[p] = h;
    }
    std::uint32_t accepted = 0;
    for (std::uint32_t level = 0; level < levels; ++level) {
      for (std::uint32_t begin = 0; begin < n;) {
        std::uint32_t end = begin + 1, split = 0;
        for (; end < n && highest_[end - 1] <= level; ++end)
          if (highest_[end - 1] == level) split = end;
        if (split != 0 && exchange(begin, split, end, level, order[level], words)) ++accepted;
        begin = end;
      }
    }
    return accepted;
  }

  std::vector<TaskId> save() const { return owner_; }
  void restore(const std::vector<TaskId>& owner) {
    owner_ = owner;
    for (std::uint32_t k = 0; k < owner_.size(); ++k) label_of_[owner_[k]] = k;
    eval_.reset(mapping());
  }

  Mapping mapping() const {
    Mapping m;
    m.slot_of_task.resize(label_of_.size());
    for (TaskId t = 0; t < label_of_.size(); ++t) m.slot_of_task[t] = slot_of_label_[label_of_[t]];
    return m;
  }

 private:
  Word p_mask(std::uint32_t w) const {
    const std::uint32_t low = w * 64;
    if (p_digits_ <= low) return 0;
    if (p_digits_ >= low + 64) return ~Word{0};
    return (Word{1} << (p_digits_ - low)) - 1;
  }

  // Sorted labels [begin, split) have the level's digit 0, [split, end) have it 1, and all
  // agree above it. Exchanges the two groups if that lowers Coco+; returns whether it did.
  bool exchange(std::uint32_t begin, std::uint32_t split, std::uint32_t end, std::uint32_t level,
                std::uint32_t digit, std::uint32_t words) {
    // Twins: labels equal below the level's digit. Both halves are sorted on those digits.
    pairs_.clear();
    auto low = [&](std::uint32_t k, std::uint32_t w) {
      const Word v = permuted_[std::size_t(k) * words + w];
      if (w * 64 + 64 <= level) return v;
      if (w * 64 >= level) return Word{0};
      return v & ((Word{1} << (level - w * 64)) - 1);
    };
    for (std::uint32_t a = begin, b = split; a < split && b < end;) {
      int cmp = 0;
      for (std::uint32_t w = words; w-- > 0 && cmp == 0;) {
        const Word x = low(sorted_[a], w), y = low(sorted_[b], w);
        cmp = x < y ? -1 : x > y ? 1 : 0;
      }
      if (cmp == 0) pairs_.push_back({sorted_[a++], sorted_[b++]});
      else if (cmp < 0) ++a;
      else ++b;
    }
    if (pairs_.empty()) return false;
    // Each moving task's digit flips: it takes its twin's label, and so its slot.
    moves_.clear();
    for (const auto& [ka, kb] : pairs_) {
      moves_.push_back({owner_[ka], slot_of_label_[kb]});
      moves_.push_back({owner_[kb], slot_of_label_[ka]});
    }
    double delta = 0, scale = 0;
    if (digit < p_digits_) {
      // The change of Coco: edges between two moving tasks keep their distance.
      const IncrementalEvaluator::HopDelta d = eval_.hop_delta(moves_);
      delta = d.change, scale = d.cut_volume;
    } else {
      // The change of Div: the tasks stay on their routers.
      ++stamp_;
      for (const auto& [ka, kb] : pairs_) moving_[owner_[ka]] = moving_[owner_[kb]] = stamp_;
      for (const auto& [ka, kb] : pairs_) {
        for (std::uint32_t k : {ka, kb}) {
          const TaskId t = owner_[k];
          const bool mine = labels_.get(k, digit);
          const auto partners = eval_.partners(t);
          const auto weights = eval_.weights(t);
          for (std::size_t e = 0; e < partners.size(); ++e) {
            const TaskId u = partners[e];
            if (moving_[u] == stamp_) continue;
            const double w = weights[e];
            delta += labels_.get(label_of_[u], digit) == mine ? w : -w;
            scale += w;
          }
        }
      }
    }
    const double tolerance = 1e-12 * scale;
    const bool better = digit < p_digits_ ? delta < -tolerance : delta > tolerance;
    if (!better) return false;
    for (const auto& [ka, kb] : pairs_) {
      std::swap(owner_[ka], owner_[kb]);
      label_of_[owner_[ka]] = ka;
      label_of_[owner_[kb]] = kb;
    }
    eval_.relocate(moves_);
    return true;
  }

  IncrementalEvaluator eval_;
  std::uint32_t p_digits_ = 0, e_digits_ = 0;
  LabelBits labels_;
  std::vector<SlotId> slot_of_label_;
  std::vector<TaskId> owner_;         // label -> task
  std::vector<std::uint32_t> label_of_;  // task -> label
  // Scratch of run_hierarchy.
  std::vector<Word> permuted_;
  std::vector<std::uint32_t> sorted_, highest_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  std::vector<Relocation> moves_;
  std::vector<std::uint32_t> moving_;
  std::uint32_t stamp_ = 0;
};

}  // namespace

Mapping timer_enhance(const MappingProblem& problem, const PartialCube& cube, Mapping start, const TimerOptions& options,
                      TimerStats* stats) {
  const Machine& machine = problem.machine();
  if (cube.num_vertices() != machine.num_routers) {
    fail("timer: the partial-cube labels cover {} vertices, the machine has {} routers", cube.num_vertices(),
         machine.num_routers);
  }
  LabelSwapper swapper(problem, cube, start, options.seed);
  auto [coco, div] = swapper.objective();
  TimerStats s;
  s.hop_bytes_before = coco;
  s.label_digits = swapper.digits();
  s.extension_digits = swapper.extension_digits();
  std::vector<std::uint32_t> order(swapper.digits());
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(options.seed ^ 0x9e3779b97f4a7c15ULL);  // not the extension's sequence
  io::Progress progress("timer hierarchies", options.hierarchies);
  for (std::uint32_t h = 0; h < options.hierarchies; ++h, progress.advance()) {
    detail::seeded_shuffle(order, rng());
    const std::vector<TaskId> saved = swapper.save();
    const std::uint32_t swaps = swapper.run_hierarchy(order);
    const auto [new_coco, new_div] = swapper.objective();
    // Line 17 of Algorithm 1: keep the hierarchy's labelling unless Coco+ got worse. Exact gains
    // make that a guard against rounding only.
    const double tol = 1e-12 * std::max(1.0, coco);
    if (new_coco > coco + tol || (new_coco > coco - tol && new_div < div - 1e-12 * std::max(1.0, div))) {
      swapper.restore(saved);
      continue;
    }
    if (swaps > 0) ++s.hierarchies_kept;
    s.swaps += swaps;
    coco = new_coco;
    div = new_div;
  }
  s.hop_bytes_after = coco;
  if (stats) *stats = s;
  Mapping result = swapper.mapping();
  result.note = std::move(start.note);
  return result;
}

}  // namespace taskmap
