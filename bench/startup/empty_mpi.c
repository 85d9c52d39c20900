/* The C rank of bench/startup.sh: MPI_Init, the wall-clock time it returned, MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv) {
    int rank, size;
    struct timespec t;
    MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_REALTIME, &t);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("STARTUP rank=%d size=%d init_us=%lld pmi_init=0 pmi_barrier=0\n", rank, size,
           (long long) t.tv_sec * 1000000LL + t.tv_nsec / 1000);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
