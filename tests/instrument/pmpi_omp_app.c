/* An unmodified hybrid MPI+OpenMP program (plain MPICH calls, no sidecore header) for libsidecore-pmpi.so's
 * dedicated core: run it preloaded with SIDECORE_PROGRESS=off or core, two or more ranks.
 *
 * What it prints (rank 0 and rank 1; the checker, pmpi_core_check, reads it):
 *   "rank R omp_max_threads N at_main M"     omp_get_max_threads() after MPI_Init and on main's first line
 *   "rank R omp_thread T cpus LIST"           each OpenMP thread's CPU mask, from inside a parallel region
 *   "rank R task NAME cpus LIST"              every thread of the process (/proc/self/task), while OpenMP runs
 *   "rank R calls blocking B init I test T wait W other O"  the MPI calls this rank made, by the model's category
 *   "rank 0 overlap ..."                      the receiver-side overlap of a BYTES message (seed 000's method:
 *                                             idle peer, Irecv - compute - Wait, against the transfer alone and the
 *                                             computation alone), and how many receptions were complete before Wait
 *
 * Rank 1 is the idle peer: it only sends, with a blocking MPI_Send (--peer spin, MPICH then spins in the call) or with
 * MPI_Isend and MPI_Test polled between 20 us sleeps (--peer sleep: little CPU, but each step of MPICH's rendezvous
 * that needs the sender then waits for its next wake-up, which a loaded machine delays).
 * Whether a reception was complete before Wait is read from the buffer (every word holds the iteration's pattern),
 * without any MPI call that would progress it: only background progress can have moved the data. With
 * --await-us U the program, its computation done, goes on watching the buffer (still without MPI calls) for up to U
 * microseconds before it calls MPI_Wait: a check of background progress that a loaded machine cannot fail by
 * descheduling the progress thread for the length of one computation (the overlap figures are then meaningless).
 * Usage: pmpi_omp_app [--iters N] [--bytes B] [--compute-us U] [--peer spin|sleep] [--await-us A]
 *        (defaults 20, 1048576, 20000, spin, 0) */
#define _GNU_SOURCE /* sched_getaffinity, CPU_SET */
#include <dirent.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long calls[5]; /* blocking, init, test, wait, other */
static int peer_sleeps;  /* --peer sleep */
static double await_s;   /* --await-us */
enum { BLOCKING, INIT, TEST, WAIT, OTHER };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The computation: every OpenMP thread spins until the deadline (a real parallel region, as the application's). */
static double compute(double seconds) {
  const double end = now_s() + seconds;
  double sink = 0.0;
#pragma omp parallel reduction(+ : sink)
  {
    double x = 0.0;
    while (now_s() < end) x += 1.0;
    sink += x;
  }
  return sink;
}

static void cpu_list(const cpu_set_t* set, char* out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE && used + 8 < n; ++c)
    if (CPU_ISSET(c, set)) used += (size_t)snprintf(out + used, n - used, used ? ",%d" : "%d", c);
}

/* Every thread of the process with its CPU mask (the progress thread is one of them in core mode). */
static void print_tasks(int rank) {
  DIR* d = opendir("/proc/self/task");
  if (!d) return;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[300], name[64] = "?", cpus[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE* f = fopen(path, "r");
    if (f) {
      if (fgets(name, sizeof name, f)) name[strcspn(name, "\n")] = '\0';
      fclose(f);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(atoi(e->d_name), sizeof set, &set) != 0) continue;
    cpu_list(&set, cpus, sizeof cpus);
    printf("rank %d task %s cpus %s\n", rank, name, cpus);
  }
  closedir(d);
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One reception measured on rank 0, one send by rank 1. compute_s < 0: no computation (the transfer alone). Returns
 * rank 0's time from Irecv to Wait's return; *early is set when the data was all there before Wait. */
static double exchange(int rank, int it, uint64_t* buf, size_t words, double compute_s, int* early) {
  const uint64_t pattern = 0x5eedc0de00000000ull + (uint64_t)it;
  MPI_Barrier(MPI_COMM_WORLD);
  ++calls[BLOCKING];
  double t = 0.0;
  if (rank == 0) {
    memset(buf, 0, words * sizeof *buf);
    MPI_Request r;
    t = now_s();
    MPI_Irecv(buf, (int)(words * sizeof *buf), MPI_BYTE, 1, it, MPI_COMM_WORLD, &r);
    ++calls[INIT];
    if (compute_s >= 0) compute(compute_s);
    const volatile uint64_t* v = buf;
    const double until = now_s() + (compute_s >= 0 ? await_s : 0.0);
    size_t arrived = 0;
    do {
      arrived = 0;
      for (size_t i = 0; i < words; ++i) arrived += v[i] == pattern;
    } while (arrived != words && now_s() < until);
    *early = arrived == words;
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    ++calls[WAIT];
    t = now_s() - t;
    for (size_t i = 0; i < words; ++i)
      if (buf[i] != pattern) {
        fprintf(stderr, "rank 0: word %zu of iteration %d is %llx, expected %llx\n", i, it,
                (unsigned long long)buf[i], (unsigned long long)pattern);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
  } else if (rank == 1 && !peer_sleeps) {
    for (size_t i = 0; i < words; ++i) buf[i] = pattern;
    MPI_Send(buf, (int)(words * sizeof *buf), MPI_BYTE, 0, it, MPI_COMM_WORLD);
    ++calls[BLOCKING];
  } else if (rank == 1) {
    for (size_t i = 0; i < words; ++i) buf[i] = pattern;
    MPI_Request r;
    MPI_Isend(buf, (int)(words * sizeof *buf), MPI_BYTE, 0, it, MPI_COMM_WORLD, &r);
    ++calls[INIT];
    int done = 0;
    const struct timespec nap = {0, 20000};
    for (;;) {
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      ++calls[TEST];
      if (done) break;
      nanosleep(&nap, NULL);
    }
  }
  return t;
}

int main(int argc, char** argv) {
  const int at_main = omp_get_max_threads();
  int iters = 20;
  long bytes = 1048576, compute_us = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--bytes")) bytes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--compute-us")) compute_us = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--peer") && (!strcmp(argv[i + 1], "spin") || !strcmp(argv[i + 1], "sleep")))
      peer_sleeps = !strcmp(argv[i + 1], "sleep");
    else if (!strcmp(argv[i], "--await-us")) await_s = 1e-6 * atof(argv[i + 1]);
    else {
      fprintf(stderr, "usage: %s [--iters N] [--bytes B] [--compute-us U] [--peer spin|sleep] [--await-us A]\n",
              argv[0]);
      return 2;
    }
  }
  if (argc % 2 == 0 || iters < 1 || iters > 100000 || bytes < 8 || bytes > (1L << 30) || compute_us < 0 ||
      compute_us > 10000000 || await_s < 0 || await_s > 60) {
    fprintf(stderr, "%s: every option takes a value; --iters 1..100000, --bytes 8..2^30, --compute-us 0..10000000, "
            "--await-us 0..60000000\n", argv[0]);
    return 2;
  }
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pmpi_omp_app needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int report = rank <= 1;
  if (report) printf("rank %d omp_max_threads %d at_main %d\n", rank, omp_get_max_threads(), at_main);
#pragma omp parallel
  {
    cpu_set_t set;
    char cpus[512];
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    cpu_list(&set, cpus, sizeof cpus);
#pragma omp critical
    if (report) printf("rank %d omp_thread %d cpus %s\n", rank, omp_get_thread_num(), cpus);
#pragma omp barrier
#pragma omp master
    if (report) print_tasks(rank);
  }
  fflush(stdout);

  const size_t words = (size_t)bytes / sizeof(uint64_t);
  uint64_t* buf = malloc(words * sizeof *buf);
  double* t_comm = malloc((size_t)iters * sizeof(double));
  double* t_comp = malloc((size_t)iters * sizeof(double));
  double* t_total = malloc((size_t)iters * sizeof(double));
  double* overlap = malloc((size_t)iters * sizeof(double));
  if (!buf || !t_comm || !t_comp || !t_total || !overlap) MPI_Abort(MPI_COMM_WORLD, 3);
  int early = 0, early_alone = 0, early_total = 0, it = 0;
  for (int i = 0; i < iters; ++i, ++it) t_comm[i] = exchange(rank, it, buf, words, -1.0, &early_alone);
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    ++calls[BLOCKING];
    const double t0 = now_s();
    compute(1e-6 * (double)compute_us);
    t_comp[i] = now_s() - t0;
  }
  for (int i = 0; i < iters; ++i, ++it) {
    t_total[i] = exchange(rank, it, buf, words, 1e-6 * (double)compute_us, &early);
    early_total += early;
  }
  if (rank == 0) {
    const double comm = median(t_comm, iters), comp = median(t_comp, iters);
    const double lo = comm < comp ? comm : comp;
    for (int i = 0; i < iters; ++i) {
      double o = 100.0 * (comm + comp - t_total[i]) / lo;
      overlap[i] = o < 0 ? 0 : o > 100 ? 100 : o;
    }
    const double med = median(overlap, iters);
    printf("rank 0 overlap bytes %ld iters %d compute_us %ld t_comm_us %.1f t_comp_us %.1f t_total_us %.1f "
           "overlap_pct median %.1f min %.1f max %.1f early %d of %d\n",
           bytes, iters, compute_us, 1e6 * comm, 1e6 * comp, 1e6 * median(t_total, iters), med, overlap[0],
           overlap[iters - 1], early_total, iters);
  }
  double total = 0.0, sum = (double)early_total;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  ++calls[BLOCKING];
  if (report)
    printf("rank %d calls blocking %ld init %ld test %ld wait %ld other %ld\n", rank, calls[BLOCKING], calls[INIT],
           calls[TEST], calls[WAIT], calls[OTHER]);
  free(buf);
  free(t_comm);
  free(t_comp);
  free(t_total);
  free(overlap);
  MPI_Finalize();
  return 0;
}
