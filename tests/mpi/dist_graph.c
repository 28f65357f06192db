/* Four ranks, MPI_Dist_graph_create_adjacent with weights and reorder = 1: heavy pairs {0,1}
 * and {2,3} (weight 100 each way), light pairs {0,2} and {1,3} (weight 1). Every process checks
 * that MPI_Dist_graph_neighbors gives the lists of the vertex it now is (its new rank), and that
 * MPI_Neighbor_alltoall delivers from exactly those sources. Prints "dist graph ok: WORLD NEW". */
#include <mpi.h>
#include <stdio.h>

static void fail(const char* what) {
  fprintf(stderr, "dist_graph: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Vertex v's neighbours: its heavy partner, then its light partner. */
static void neighbours(int v, int out[2], int weights[2]) {
  out[0] = v ^ 1, weights[0] = 100;
  out[1] = v ^ 2, weights[1] = 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) fail("run with 4 processes");
  int list[2], weights[2];
  neighbours(world, list, weights);
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, list, weights, 2, list, weights, MPI_INFO_NULL, 1, &graph);
  int rank, in, out, weighted;
  MPI_Comm_rank(graph, &rank);
  MPI_Dist_graph_neighbors_count(graph, &in, &out, &weighted);
  if (in != 2 || out != 2 || !weighted) fail("wrong neighbour counts");
  int sources[2], source_weights[2], destinations[2], destination_weights[2], expected[2], expected_weights[2];
  MPI_Dist_graph_neighbors(graph, 2, sources, source_weights, 2, destinations, destination_weights);
  neighbours(rank, expected, expected_weights);
  for (int i = 0; i < 2; ++i) {
    if (sources[i] != expected[i] || destinations[i] != expected[i]) fail("neighbours are not those of the new rank");
    if (source_weights[i] != expected_weights[i] || destination_weights[i] != expected_weights[i]) fail("wrong weights");
  }
  int send[2] = {rank, rank}, recv[2] = {-1, -1};
  MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, graph);
  if (recv[0] != expected[0] || recv[1] != expected[1]) fail("MPI_Neighbor_alltoall delivered from other ranks");
  printf("dist graph ok: %d %d\n", world, rank);
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return 0;
}
