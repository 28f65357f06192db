#pragma once
// Fortran's MPI_IN_PLACE, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are not values but addresses of
// variables of the MPI library, which a Fortran binding compares its arguments against. The
// PMPI libraries that interpose Fortran entry points (the profiler, the reorder library) look
// them up by symbol: Open MPI's mpi_fortran_NAME under each compiler's spelling; MPICH's
// mpi_f08 variables; and for MPICH's mpif.h the address MPICH stores in MPIR_F_MPI_NAME at
// MPI_Init. Header-only: each library has its own copy.
#include <dlfcn.h>

#include <array>
#include <cctype>
#include <string>

namespace taskmap::mpi_fortran {

enum class Constant { InPlace, Unweighted, WeightsEmpty };

// True when `address` is the Fortran constant `c` of an MPI library loaded in this process.
inline bool is_constant(const void* address, Constant c) {
  struct Symbols {
    std::array<void*, 5> variables;
    void* const* mpich_f77;  // a pointer the MPI library sets at MPI_Init
  };
  auto lookup = [](const std::string& open_mpi, const char* mpich_f08, const char* mpich_f77) {
    std::string upper = open_mpi;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return Symbols{{dlsym(RTLD_DEFAULT, (open_mpi + "_").c_str()), dlsym(RTLD_DEFAULT, open_mpi.c_str()),
                    dlsym(RTLD_DEFAULT, (open_mpi + "__").c_str()), dlsym(RTLD_DEFAULT, upper.c_str()),
                    dlsym(RTLD_DEFAULT, mpich_f08)},
                   static_cast<void* const*>(dlsym(RTLD_DEFAULT, mpich_f77))};
  };
  // Looked up at first use, after MPI_Init: the MPI libraries are loaded by then.
  static const std::array<Symbols, 3> table = {
      lookup("mpi_fortran_in_place", "MPIR_F08_MPI_IN_PLACE", "MPIR_F_MPI_IN_PLACE"),
      lookup("mpi_fortran_unweighted", "__mpi_f08_link_constants_MOD_mpi_unweighted", "MPIR_F_MPI_UNWEIGHTED"),
      lookup("mpi_fortran_weights_empty", "__mpi_f08_link_constants_MOD_mpi_weights_empty",
             "MPIR_F_MPI_WEIGHTS_EMPTY")};
  if (address == nullptr) return false;
  const Symbols& s = table[static_cast<std::size_t>(c)];
  for (const void* v : s.variables) {
    if (v && address == v) return true;
  }
  return s.mpich_f77 && address == *s.mpich_f77;
}

}  // namespace taskmap::mpi_fortran
