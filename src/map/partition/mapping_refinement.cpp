#include "mapping_refinement.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

#include "taskmap/map/mapper_support.h"

namespace taskmap::detail {
namespace {
constexpr std::uint32_t kNone = UINT32_MAX;
}  // namespace

MappingRefiner::MappingRefiner(const LevelGraph& level, const BlockMachine& machine, std::vector<std::uint32_t> part,
                               const RefinementOptions& options, std::uint64_t& work)
    : level_(level), g_(level.graph), machine_(machine), options_(options), work_(work), part_(std::move(part)),
      rng_(options.seed) {
  const std::uint32_t k = machine.blocks(), n = level.vertices();
  load_.assign(k, 0);
  on_.resize(k);
  position_.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    load_[part_[v]] += level.tasks[v];
    position_[v] = static_cast<std::uint32_t>(on_[part_[v]].size());
    on_[part_[v]].push_back(v);
  }
  volume_to_.assign(k, 0.0);
  candidate_stamp_.assign(k, 0);
  moved_in_round_.assign(n, kNone);
  version_.assign(n, 0);
  double total = 0;
  for (double w : g_.weights) total += w;
  tolerance_ = 1e-12 * total;
}

double MappingRefiner::cost() const {
  double sum = 0;
  for (std::uint32_t v = 0; v < level_.vertices(); ++v)
    for (std::uint64_t e = g_.offsets[v]; e < g_.offsets[v + 1]; ++e)
      if (g_.targets[e] > v) sum += g_.weights[e] * machine_.distance(part_[v], part_[g_.targets[e]]);
  return sum;
}

std::uint64_t MappingRefiner::overload() const {
  std::uint64_t sum = 0;
  for (std::uint32_t b = 0; b < machine_.blocks(); ++b)
    if (load_[b] > capacity(b)) sum += load_[b] - capacity(b);
  return sum;
}

void MappingRefiner::gather(std::uint32_t v) {
  for (std::uint32_t b : touched_) volume_to_[b] = 0;
  touched_.clear();
  for (std::uint64_t e = g_.offsets[v]; e < g_.offsets[v + 1]; ++e) {
    const std::uint32_t b = part_[g_.targets[e]];
    if (volume_to_[b] == 0) touched_.push_back(b);
    volume_to_[b] += g_.weights[e];
  }
  work_ += g_.offsets[v + 1] - g_.offsets[v];
}

double MappingRefiner::cost_at(std::uint32_t block) const {
  double c = 0;
  for (std::uint32_t q : touched_) c += volume_to_[q] * machine_.distance(block, q);
  return c;
}

void MappingRefiner::collect_candidates(std::uint32_t v) {
  if (++stamp_ == 0) std::fill(candidate_stamp_.begin(), candidate_stamp_.end(), 0), stamp_ = 1;
  const std::uint32_t own = part_[v];
  candidate_stamp_[own] = stamp_;
  candidates_.assign(touched_.begin(), touched_.end());
  const std::size_t most = options_.most_partner_blocks;
  if (candidates_.size() > most) {
    std::partial_sort(candidates_.begin(), candidates_.begin() + std::ptrdiff_t(most), candidates_.end(),
                      [&](std::uint32_t a, std::uint32_t b) {
                        return volume_to_[a] > volume_to_[b] || (volume_to_[a] == volume_to_[b] && a < b);
                      });
    candidates_.resize(most);
  }
  std::erase(candidates_, own);
  for (std::uint32_t b : candidates_) candidate_stamp_[b] = stamp_;
  for (std::uint32_t b : machine_.nearby(own)) {
    if (candidate_stamp_[b] != stamp_) candidate_stamp_[b] = stamp_, candidates_.push_back(b);
  }
}

bool MappingRefiner::fits(std::uint32_t v, std::uint32_t to) const {
  return load_[to] + level_.tasks[v] <= capacity(to);
}

MappingRefiner::Move MappingRefiner::best_move(std::uint32_t v, std::vector<Move>* blocked, bool must_leave) {
  Move best;
  if (blocked) blocked->clear();
  gather(v);
  if (touched_.empty() && !must_leave) return best;
  const std::uint32_t own = part_[v];
  const double here = cost_at(own);
  if (here == 0 && !must_leave) return best;  // every partner is in its block
  collect_candidates(v);
  if (must_leave) {  // a block with room, the nearest
    std::uint32_t nearest = kNone;
    for (std::uint32_t b = 0; b < machine_.blocks(); ++b) {
      if (b != own && fits(v, b) && (nearest == kNone || machine_.distance(own, b) < machine_.distance(own, nearest))) {
        nearest = b;
      }
    }
    if (nearest != kNone && candidate_stamp_[nearest] != stamp_) candidates_.push_back(nearest);
    work_ += machine_.blocks();
  }
  for (std::uint32_t x : candidates_) {
    const double gain = here - cost_at(x);
    if (fits(v, x)) {
      if (best.to == kNone || gain > best.gain) best = {x, gain};
    } else if (blocked && gain > tolerance_) {
      blocked->push_back({x, gain});
    }
  }
  work_ += std::uint64_t(touched_.size()) * candidates_.size();
  return best;
}

void MappingRefiner::move(std::uint32_t v, std::uint32_t to) {
  const std::uint32_t from = part_[v];
  auto& list = on_[from];
  list[position_[v]] = list.back();
  position_[list.back()] = position_[v];
  list.pop_back();
  position_[v] = static_cast<std::uint32_t>(on_[to].size());
  on_[to].push_back(v);
  load_[from] -= level_.tasks[v];
  load_[to] += level_.tasks[v];
  part_[v] = to;
}

double MappingRefiner::edge_between(std::uint32_t v, std::uint32_t u) const {
  const auto begin = g_.targets.begin() + std::ptrdiff_t(g_.offsets[v]);
  const auto end = g_.targets.begin() + std::ptrdiff_t(g_.offsets[v + 1]);
  const auto it = std::lower_bound(begin, end, u);
  return it != end && *it == u ? g_.weights[std::size_t(it - g_.targets.begin())] : 0.0;
}

void MappingRefiner::rebalance(std::uint64_t slack) {
  for (bool progress = true; progress && overload() > 0;) {
    progress = false;
    for (std::uint32_t a = 0; a < machine_.blocks(); ++a) {
      while (load_[a] > capacity(a) + slack) {
        // The vertex whose leaving costs least, to its best block with room: per task of the
        // excess when it is lighter than the excess.
        const double excess = double(load_[a] - capacity(a) - slack);
        std::uint32_t chosen = kNone;
        Move chosen_move;
        double chosen_key = 0;
        for (std::uint32_t v : on_[a]) {
          const Move m = best_move(v, nullptr, true);
          if (m.to == kNone) continue;
          const double key = -m.gain * std::max(1.0, excess / level_.tasks[v]);
          if (chosen == kNone || key < chosen_key) chosen = v, chosen_move = m, chosen_key = key;
        }
        if (chosen == kNone) break;
        move(chosen, chosen_move.to);
        progress = true;
      }
    }
  }
}

bool MappingRefiner::try_swap(std::uint32_t v, std::vector<Move>& targets, double least) {
  const std::size_t most = std::min<std::size_t>(targets.size(), options_.most_swap_blocks);
  std::partial_sort(targets.begin(), targets.begin() + std::ptrdiff_t(most), targets.end(),
                    [](const Move& a, const Move& b) { return a.gain > b.gain || (a.gain == b.gain && a.to < b.to); });
  const std::uint32_t from = part_[v];
  const std::uint64_t tv = level_.tasks[v];
  std::uint32_t partner = kNone, partner_block = kNone;
  double best = std::max(least, tolerance_);
  for (std::size_t i = 0; i < most; ++i) {
    const std::uint32_t to = targets[i].to;
    const double across = machine_.distance(from, to);
    for (std::uint32_t u : on_[to]) {
      const std::uint64_t tu = level_.tasks[u];
      const std::uint64_t at_to = load_[to] - tu + tv, at_from = load_[from] - tv + tu;
      if ((at_to > capacity(to) && at_to > load_[to]) ||
          (at_from > capacity(from) && at_from > load_[from])) {
        continue;
      }
      const double total = targets[i].gain - move_delta(u, from) - 2 * edge_between(v, u) * across;
      if (total > best) best = total, partner = u, partner_block = to;
    }
  }
  if (partner == kNone) return false;
  move(v, partner_block);
  move(partner, from);
  return true;
}

bool MappingRefiner::greedy_pass(std::vector<std::uint32_t>& order) {
  seeded_shuffle(order, rng_());
  bool any = false;
  for (std::uint32_t v : order) {
    const Move m = best_move(v, &blocked_);
    const double least = m.to != kNone ? std::max(m.gain, 0.0) : 0.0;
    if (!blocked_.empty() && try_swap(v, blocked_, least)) {
      any = true;
    } else if (m.to != kNone && m.gain > tolerance_) {
      move(v, m.to);
      any = true;
    }
  }
  return any;
}

double MappingRefiner::fm_search(std::uint32_t seed_vertex, std::uint32_t round) {
  struct Entry {
    double gain;
    std::uint32_t vertex, version;
    bool operator<(const Entry& o) const { return gain < o.gain || (gain == o.gain && vertex > o.vertex); }
  };
  std::priority_queue<Entry> heap;
  auto push = [&](std::uint32_t u) {
    const Move m = best_move(u);
    if (m.to == kNone) return;
    heap.push({m.gain, u, ++version_[u]});
  };
  log_.clear();
  push(seed_vertex);
  double sum = 0, best = 0;
  std::size_t best_length = 0;
  std::uint32_t since_best = 0;
  while (!heap.empty()) {
    const Entry top = heap.top();
    heap.pop();
    const std::uint32_t v = top.vertex;
    if (top.version != version_[v] || moved_in_round_[v] == round) continue;
    const Move m = best_move(v);
    if (m.to == kNone) continue;
    if (m.gain < top.gain - tolerance_) {  // its partners moved since: queue it at its present gain
      heap.push({m.gain, v, ++version_[v]});
      continue;
    }
    log_.push_back({v, part_[v]});
    move(v, m.to);
    moved_in_round_[v] = round;
    sum += m.gain;
    if (sum > best + tolerance_) {
      best = sum, best_length = log_.size(), since_best = 0;
    } else if (++since_best >= options_.fm_patience) {
      break;
    }
    for (std::uint64_t e = g_.offsets[v]; e < g_.offsets[v + 1]; ++e)
      if (moved_in_round_[g_.targets[e]] != round) push(g_.targets[e]);
  }
  while (log_.size() > best_length) {
    move(log_.back().first, log_.back().second);
    log_.pop_back();
  }
  return best;
}

double MappingRefiner::fm_round() {
  const std::uint32_t round = rounds_++;
  std::vector<std::uint32_t> seeds;
  for (std::uint32_t v = 0; v < level_.vertices(); ++v) {
    for (std::uint64_t e = g_.offsets[v]; e < g_.offsets[v + 1]; ++e) {
      if (part_[g_.targets[e]] != part_[v]) {
        seeds.push_back(v);
        break;
      }
    }
  }
  work_ += g_.offsets.back();
  seeded_shuffle(seeds, rng_());
  double gained = 0;
  for (std::uint32_t s : seeds)
    if (moved_in_round_[s] != round) gained += fm_search(s, round);
  return gained;
}

double MappingRefiner::move_delta(std::uint32_t v, std::uint32_t x) {
  const std::uint32_t a = part_[v];
  double delta = 0;
  for (std::uint64_t e = g_.offsets[v]; e < g_.offsets[v + 1]; ++e) {
    const std::uint32_t q = part_[g_.targets[e]];
    delta += g_.weights[e] * (double(machine_.distance(x, q)) - double(machine_.distance(a, q)));
  }
  work_ += g_.offsets[v + 1] - g_.offsets[v];
  return delta;
}

namespace {

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: the annealing draws a few
// numbers per step, where mt19937_64 and a 64-bit modulo were a third of its time.
class FastRandom {
 public:
  explicit FastRandom(std::uint64_t seed) {
    for (auto& word : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t, s_[3] = rotl(s_[3], 45);
    return result;
  }
  // In [0, n) for n < 2^32: the top 32 bits scaled (bias below 2^-32 x n).
  std::uint32_t below(std::uint64_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace

void MappingRefiner::anneal() {
  const std::uint32_t n = level_.vertices(), k = machine_.blocks();
  if (n < 2 || k < 2 || options_.anneal_steps == 0) return;
  FastRandom random(rng_());
  const std::uint64_t steps = std::max(std::uint64_t(options_.anneal_steps) * n, options_.least_anneal_steps);
  auto swap_delta = [&](std::uint32_t v, std::uint32_t u) {
    const std::uint32_t a = part_[v], x = part_[u];
    return move_delta(v, x) + move_delta(u, a) + 2 * edge_between(v, u) * machine_.distance(a, x);
  };
  auto swap_fits = [&](std::uint32_t v, std::uint32_t u) {
    const std::uint32_t a = part_[v], x = part_[u];
    const std::uint64_t tv = level_.tasks[v], tu = level_.tasks[u];
    const std::uint64_t at_x = load_[x] - tu + tv, at_a = load_[a] - tv + tu;
    return (at_x <= capacity(x) || at_x <= load_[x]) && (at_a <= capacity(a) || at_a <= load_[a]);
  };
  // A random candidate: the block of one of v's partners, or a block next to it.
  auto pick_block = [&](std::uint32_t v) -> std::uint32_t {
    const std::uint64_t degree = g_.offsets[v + 1] - g_.offsets[v];
    std::uint32_t q = degree > 0 ? part_[g_.targets[g_.offsets[v] + random.below(degree)]] : random.below(k);
    if (random.next() & 1) {
      const auto near = machine_.nearby(q);
      if (!near.empty()) q = near[random.below(near.size())];
    }
    return q;
  };
  // The starting temperature: the mean change of a sample of random moves.
  double sum = 0;
  std::uint32_t sampled = 0;
  for (std::uint32_t i = 0; i < 200; ++i) {
    const std::uint32_t v = random.below(n), x = pick_block(v);
    if (x == part_[v]) continue;
    const double d = std::abs(move_delta(v, x));
    if (d > 0) sum += d, ++sampled;
  }
  if (sampled == 0) return;
  // Geometric cooling from there to a hundredth of it.
  const double cooling = std::pow(0.01, 1.0 / double(steps));
  double temperature = sum / sampled, current = cost(), best = current;
  // The way back to the best placement seen: the moves since, or a copy once they outnumber it.
  std::vector<std::uint32_t> best_part;
  log_.clear();
  auto shift = [&](std::uint32_t v, std::uint32_t to) {
    if (log_.size() >= n) {  // a copy of the best is cheaper than more of the log
      if (best_part.empty()) {
        best_part = part_;
        for (std::size_t i = log_.size(); i-- > 0;) best_part[log_[i].first] = log_[i].second;
      }
      log_.clear();
    }
    if (best_part.empty()) log_.push_back({v, part_[v]});
    move(v, to);
  };
  for (std::uint64_t step = 0; step < steps; ++step, temperature *= cooling) {
    const std::uint32_t v = random.below(n), x = pick_block(v);
    if (x == part_[v]) continue;
    std::uint32_t u = kNone;
    double delta;
    if (fits(v, x)) {
      delta = move_delta(v, x);
    } else {
      if (on_[x].empty()) continue;
      u = on_[x][random.below(on_[x].size())];
      if (!swap_fits(v, u)) continue;
      delta = swap_delta(v, u);
    }
    // exp(-20) is below the resolution of the draw's comparison that matters here.
    if (delta > 0 && (delta > 20 * temperature || random.unit() >= std::exp(-delta / temperature))) continue;
    const std::uint32_t a = part_[v];
    shift(v, x);
    if (u != kNone) shift(u, a);
    current += delta;
    if (current < best - tolerance_) best = current, best_part.clear(), log_.clear();
  }
  if (!best_part.empty()) {
    for (std::uint32_t v = 0; v < n; ++v)
      if (part_[v] != best_part[v]) move(v, best_part[v]);
  } else {
    for (std::size_t i = log_.size(); i-- > 0;) move(log_[i].first, log_[i].second);
  }
  log_.clear();
}

void MappingRefiner::refine() {
  std::vector<std::uint32_t> order(level_.vertices());
  std::iota(order.begin(), order.end(), 0u);
  anneal();
  for (std::uint32_t pass = 0; pass < options_.greedy_passes && greedy_pass(order); ++pass) {
  }
  for (std::uint32_t round = 0; round < options_.fm_rounds; ++round) {
    if (fm_round() <= tolerance_) break;
  }
  for (std::uint32_t pass = 0; pass < options_.greedy_passes && greedy_pass(order); ++pass) {
  }
}

}  // namespace taskmap::detail
