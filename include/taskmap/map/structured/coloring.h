#pragma once
// Grid colourings behind the structured mappers, and checkers for the properties the papers
// prove about them. A colouring is one colour per grid cell, row-major (first size slowest).
#include <cstdint>
#include <string>
#include <vector>

namespace taskmap {

using Coloring = std::vector<std::uint32_t>;

// [PERCS-map Lemma 4.1, Appendix A]: a perfect colouring of the periodic p x q grid with pq/2
// colours, each used twice. Rows 2j and 2j+1 take colour group j (colours jq .. jq+q-1) in the
// nice pair of permutations sigma1(i) = i, sigma2(i) = 5i + 2 mod q. Needs p a multiple of 4
// and q >= 8 a power of two; throws naming the constraint otherwise.
Coloring mod_coloring(std::uint32_t p, std::uint32_t q);

struct ColoringCheck {
  bool ok = true;
  std::string problem;  // the first violation found, "" when ok
};

// Perfect [PERCS-map §4.3]: on the periodic p x q grid, for every colour the 4f neighbours of
// its f cells are pairwise distinct and differ from the colour itself.
ColoringCheck check_perfect_coloring(const Coloring& colors, std::uint32_t p, std::uint32_t q);

// [Dragonfly-BAC §2]: balanced adjacency colouring of the n x n mesh by lines and cycles copied
// from the reference (top) row. colors = n (any n >= 2: every pair adjacent exactly 4 times)
// or 2n (n even: 4 colours per cycle, one pair per half of it, 2 per line; every pair
// adjacent at most once). Throws for other combinations.
Coloring balanced_adjacency_coloring(std::uint32_t n, std::uint32_t colors);

// The 3D generalisation by 2D slices: slice z of the n x n x n mesh is the n-colour 2D
// colouring with every colour shifted by z(z+1)/2 mod n, so consecutive slices differ by the
// shifts 1, 2, ..., n-1 and every colour pair meets equally often across slices too.
Coloring balanced_adjacency_coloring_3d(std::uint32_t n);

// Balanced adjacency on the (non-periodic) mesh with these sizes: every colour used
// floor(N/k) or ceil(N/k) times, every pair of colours adjacent floor(A/C(k,2)) or
// ceil(A/C(k,2)) times, A = adjacent cell pairs of distinct colours.
ColoringCheck check_balanced_adjacency(const Coloring& colors, const std::vector<std::uint32_t>& sizes,
                                       std::uint32_t num_colors);

}  // namespace taskmap
