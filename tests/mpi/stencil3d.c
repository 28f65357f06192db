/* A periodic 3D Jacobi stencil on a Cartesian communicator created with reorder = 1: halos
 * exchanged with MPI_Cart_shift + MPI_Sendrecv and, separately, with MPI_Neighbor_alltoall;
 * both results are compared with a single-process computation of the whole grid, cell by cell
 * (the same arithmetic in the same order, so equal bit for bit). Also checks MPI_Cart_coords,
 * MPI_Cart_rank and MPI_Cart_sub against each other. Prints "stencil ok: WORLD CART" per
 * process and exits 0; any mismatch aborts with status 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L = 4, STEPS = 5 };  /* cells per process per dimension, Jacobi steps */

static int N[3];            /* global cells per dimension */
#define AT(a, x, y, z, n0, n1, n2) (a)[((size_t)(x) * (size_t)(n1) + (size_t)(y)) * (size_t)(n2) + (size_t)(z)]

static double initial(int x, int y, int z) { return (double)((x * 7 + y * 13 + z * 17) % 11); }

static void fail(const char* what) {
  fprintf(stderr, "stencil: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One Jacobi step on a block with a one-cell halo (n = L + 2 per dimension). */
static void step(const double* u, double* v) {
  const int n = L + 2;
  for (int x = 1; x <= L; ++x)
    for (int y = 1; y <= L; ++y)
      for (int z = 1; z <= L; ++z)
        AT(v, x, y, z, n, n, n) = (AT(u, x, y, z, n, n, n) + AT(u, x - 1, y, z, n, n, n) + AT(u, x + 1, y, z, n, n, n) +
                                   AT(u, x, y - 1, z, n, n, n) + AT(u, x, y + 1, z, n, n, n) +
                                   AT(u, x, y, z - 1, n, n, n) + AT(u, x, y, z + 1, n, n, n)) / 7.0;
}

/* Face `side` (0: low, 1: high) of dimension d: interior cells (pack) or halo cells (unpack). */
static void face(double* u, int d, int side, int halo, double* buffer, int pack) {
  const int n = L + 2;
  int k = 0;
  const int layer = halo ? (side ? L + 1 : 0) : (side ? L : 1);
  for (int a = 1; a <= L; ++a)
    for (int b = 1; b <= L; ++b) {
      int c[3];
      c[d] = layer, c[(d + 1) % 3] = a, c[(d + 2) % 3] = b;
      double* cell = &AT(u, c[0], c[1], c[2], n, n, n);
      if (pack) buffer[k++] = *cell;
      else *cell = buffer[k++];
    }
}

static void exchange_sendrecv(MPI_Comm cart, double* u) {
  double send[L * L], recv[L * L];
  for (int d = 0; d < 3; ++d) {
    int low, high;
    MPI_Cart_shift(cart, d, 1, &low, &high);
    face(u, d, 1, 0, send, 1); /* my high face goes up, the low neighbour's arrives in my low halo */
    MPI_Sendrecv(send, L * L, MPI_DOUBLE, high, d, recv, L * L, MPI_DOUBLE, low, d, cart, MPI_STATUS_IGNORE);
    face(u, d, 0, 1, recv, 0);
    face(u, d, 0, 0, send, 1);
    MPI_Sendrecv(send, L * L, MPI_DOUBLE, low, 3 + d, recv, L * L, MPI_DOUBLE, high, 3 + d, cart, MPI_STATUS_IGNORE);
    face(u, d, 1, 1, recv, 0);
  }
}

/* Neighbours of a Cartesian communicator come in the order (d, -1), (d, +1) for d = 0, 1, 2. */
static void exchange_neighbor_alltoall(MPI_Comm cart, double* u) {
  double send[6 * L * L], recv[6 * L * L];
  for (int d = 0; d < 3; ++d) {
    face(u, d, 0, 0, send + (2 * d) * L * L, 1);
    face(u, d, 1, 0, send + (2 * d + 1) * L * L, 1);
  }
  MPI_Neighbor_alltoall(send, L * L, MPI_DOUBLE, recv, L * L, MPI_DOUBLE, cart);
  for (int d = 0; d < 3; ++d) {
    face(u, d, 0, 1, recv + (2 * d) * L * L, 0);
    face(u, d, 1, 1, recv + (2 * d + 1) * L * L, 0);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
  MPI_Dims_create(size, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
  if (cart == MPI_COMM_NULL) fail("no Cartesian communicator");
  int rank, coords[3], back;
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  MPI_Cart_rank(cart, coords, &back);
  if (back != rank) fail("MPI_Cart_rank does not invert MPI_Cart_coords");
  for (int d = 0; d < 3; ++d) N[d] = dims[d] * L;
  /* A line along dimension 0: its ranks are the coordinates along it. */
  int keep[3] = {1, 0, 0}, line_rank, line_size;
  MPI_Comm line;
  MPI_Cart_sub(cart, keep, &line);
  MPI_Comm_rank(line, &line_rank);
  MPI_Comm_size(line, &line_size);
  if (line_rank != coords[0] || line_size != dims[0]) fail("MPI_Cart_sub disagrees with the coordinates");
  MPI_Comm_free(&line);

  /* The whole grid in one process, for reference. */
  const size_t cells = (size_t)N[0] * (size_t)N[1] * (size_t)N[2];
  double* whole = malloc(sizeof(double) * cells);
  double* next = malloc(sizeof(double) * cells);
  for (int x = 0; x < N[0]; ++x)
    for (int y = 0; y < N[1]; ++y)
      for (int z = 0; z < N[2]; ++z) AT(whole, x, y, z, N[0], N[1], N[2]) = initial(x, y, z);
  for (int s = 0; s < STEPS; ++s) {
    for (int x = 0; x < N[0]; ++x)
      for (int y = 0; y < N[1]; ++y)
        for (int z = 0; z < N[2]; ++z) {
#define W(i, j, k) AT(whole, ((i) + N[0]) % N[0], ((j) + N[1]) % N[1], ((k) + N[2]) % N[2], N[0], N[1], N[2])
          AT(next, x, y, z, N[0], N[1], N[2]) = (W(x, y, z) + W(x - 1, y, z) + W(x + 1, y, z) + W(x, y - 1, z) +
                                                 W(x, y + 1, z) + W(x, y, z - 1) + W(x, y, z + 1)) / 7.0;
        }
    double* t = whole;
    whole = next, next = t;
  }

  const int n = L + 2;
  for (int variant = 0; variant < 2; ++variant) {
    double* u = calloc((size_t)n * (size_t)n * (size_t)n, sizeof(double));
    double* v = calloc((size_t)n * (size_t)n * (size_t)n, sizeof(double));
    for (int x = 1; x <= L; ++x)
      for (int y = 1; y <= L; ++y)
        for (int z = 1; z <= L; ++z)
          AT(u, x, y, z, n, n, n) = initial(coords[0] * L + x - 1, coords[1] * L + y - 1, coords[2] * L + z - 1);
    for (int s = 0; s < STEPS; ++s) {
      if (variant == 0) exchange_sendrecv(cart, u);
      else exchange_neighbor_alltoall(cart, u);
      step(u, v);
      double* t = u;
      u = v, v = t;
    }
    for (int x = 1; x <= L; ++x)
      for (int y = 1; y <= L; ++y)
        for (int z = 1; z <= L; ++z)
          if (AT(u, x, y, z, n, n, n) !=
              AT(whole, coords[0] * L + x - 1, coords[1] * L + y - 1, coords[2] * L + z - 1, N[0], N[1], N[2])) {
            fail(variant == 0 ? "point-to-point halos give a different grid" : "MPI_Neighbor_alltoall halos give a different grid");
          }
    free(u), free(v);
  }
  printf("stencil ok: %d %d\n", world, rank);
  free(whole), free(next);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
