/* Unusual but legal MPI programs, run under LD_PRELOAD=libsidecore-pmpi.so by run_pmpi_edge_test.sh. One case per
 * run, named by the first argument:
 *   intercomm  MPI_Alltoallv, MPI_Alltoallw and MPI_Ialltoallv on an intercommunicator whose remote group is smaller
 *              than its local group (at least 3 ranks: rank 0 against the others). Their count and type arrays have
 *              one entry per remote rank; each is placed right before an inaccessible page, so that reading an entry
 *              past its end (one per local rank) stops the process with SIGSEGV. Then an MPI_Scatter whose root
 *              gives no receive buffer and MPI_DATATYPE_NULL (insignificant at an intercommunicator's root).
 *   helper_first (2 ranks or more, MPI_THREAD_MULTIPLE) another thread makes the first call (an MPI_Barrier); then
 *              rank 1's main thread waits 300 ms in MPI_Recv for rank 0, and every rank makes an MPI_Barrier: the
 *              communicating thread (t_comp's) is the main thread, with 2 blocking calls, not the helper.
 *   errors_return MPI_Allreduce with MPI_DATATYPE_NULL on a duplicate of the world under MPI_ERRORS_RETURN: an
 *              error code returned (no abort), then a correct MPI_Allreduce on it.
 *   noexit     returns from main without MPI_Finalize, with status 4 (an error path of a real program).
 *   errstatus  (2 ranks or more) MPI_Waitall of an MPI_Ibarrier and a receive that fails (truncated, under
 *              MPI_ERRORS_RETURN) on rank 0: MPI_ERR_IN_STATUS, the barrier complete all the same; then an
 *              MPI_Barrier. Per rank 2 barrier instances, each matched across the ranks.
 *   getstatus  an MPI_Ibarrier polled with MPI_Request_get_status until complete, then 300 ms of computation
 *              before its MPI_Wait: the instance completed at the poll (its latency is far under 300 ms).
 *   merge      (2 ranks or more) an intercommunicator between the even and the odd ranks, merged with
 *              MPI_Intercomm_merge, then 3 MPI_Barrier on the merged communicator: 3 barrier instances per rank,
 *              each matched across the ranks.
 *   create_group (2 ranks or more) two communicators made by MPI_Comm_create_group over every rank with tag 7,
 *              one more over the even ranks with tag 8, then 2 MPI_Barrier on each: 4 barrier instances per odd
 *              rank and 6 per even rank, each matched across its communicator's ranks.
 *   plain ...  one MPI_Barrier; further arguments are ignored (they show in the profile's command line).
 *   chdir DIR  makes DIR and changes the working directory to it after MPI_Init (a program that runs in a work
 *              directory of its own), then an MPI_Barrier.
 *   pmpi_init  initializes and finalizes MPI by PMPI_Init_thread and PMPI_Finalize themselves, past the profiler,
 *              with an MPI_Barrier between: no profile, and the profiler says why at the program's exit.
 *   threads N  N threads, one after the other, each making one MPI_Isend, MPI_Irecv and MPI_Waitall on
 *              MPI_COMM_SELF, then the main thread makes one MPI_Barrier: per rank init 2N, wait N, blocking 1, and
 *              N + 1 calling threads.
 *   requests   (2 ranks) request handling the profile must count exactly: MPI_Waitall with MPI_REQUEST_NULL entries
 *              and MPI_STATUSES_IGNORE, a send freed by MPI_Request_free, persistent requests of every send mode
 *              (Send/Ssend/Bsend/Rsend_init and their _c twins, Recv_init) started by MPI_Start and MPI_Startall,
 *              MPI_Waitsome and MPI_Testsome (also on requests that are all null), communicators freed after use.
 *              Per rank blocking 5, init 17, test 1, wait 11, other 23; barrier 2 and allreduce 1 instances.
 * Prints "pmpi_edge_app: <case> done" on rank 0 when the case ran to its end. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* n elements of `size` bytes ending exactly where an inaccessible page begins. */
static void* before_guard_page(size_t n, size_t size) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char* p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED || mprotect(p + page, page, PROT_NONE) != 0) {
    perror("pmpi_edge_app: mmap");
    exit(3);
  }
  return p + page - n * size;
}

static int intercomm_case(int rank, int size) {
  if (size < 3) {
    fprintf(stderr, "pmpi_edge_app: intercomm needs at least 3 ranks\n");
    return 1;
  }
  const int color = rank == 0 ? 0 : 1;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 3, &inter);
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  int* counts = before_guard_page((size_t)remote, sizeof(int));
  int* displs = before_guard_page((size_t)remote, sizeof(int));
  MPI_Datatype* types = before_guard_page((size_t)remote, sizeof(MPI_Datatype));
  int* sendbuf = calloc((size_t)remote, sizeof(int));
  int* recvbuf = calloc((size_t)remote, sizeof(int));
  for (int i = 0; i < remote; ++i) {
    counts[i] = 1;
    displs[i] = i;
    types[i] = MPI_INT;
    sendbuf[i] = rank;
  }
  MPI_Alltoallv(sendbuf, counts, displs, MPI_INT, recvbuf, counts, displs, MPI_INT, inter);
  int wdispls[64];
  for (int i = 0; i < remote && i < 64; ++i) wdispls[i] = i * (int)sizeof(int);
  MPI_Alltoallw(sendbuf, counts, wdispls, types, recvbuf, counts, wdispls, types, inter);
  MPI_Request r;
  MPI_Ialltoallv(sendbuf, counts, displs, MPI_INT, recvbuf, counts, displs, MPI_INT, inter, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  const int expected = color == 0 ? 1 : 0; /* the remote group's rank 0 */
  if (recvbuf[0] != expected) {
    fprintf(stderr, "pmpi_edge_app: rank %d: intercomm alltoallv got %d, expected %d\n", rank, recvbuf[0], expected);
    return 1;
  }
  /* A rooted collective: the root's receive arguments are insignificant (here no buffer and no type at all). */
  int scattered = -1;
  if (color == 0) {
    MPI_Scatter(sendbuf, 1, MPI_INT, NULL, 1, MPI_DATATYPE_NULL, MPI_ROOT, inter);
  } else {
    MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, &scattered, 1, MPI_INT, 0, inter);
    if (scattered != 0) {
      fprintf(stderr, "pmpi_edge_app: rank %d: intercomm scatter got %d, expected 0\n", rank, scattered);
      return 1;
    }
  }
  free(sendbuf);
  free(recvbuf);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return 0;
}

static int errors_return_case(int size) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  int a = 1, b = 0;
  if (MPI_Allreduce(&a, &b, 1, MPI_DATATYPE_NULL, MPI_SUM, c) == MPI_SUCCESS) {
    fprintf(stderr, "pmpi_edge_app: errors_return: MPI_Allreduce(MPI_DATATYPE_NULL) succeeded\n");
    return 1;
  }
  if (MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, c) != MPI_SUCCESS || b != size) {
    fprintf(stderr, "pmpi_edge_app: errors_return: the next MPI_Allreduce gave %d, expected %d\n", b, size);
    return 1;
  }
  MPI_Comm_free(&c);
  return 0;
}

static int errstatus_case(int rank) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int buf[2] = {1, 2};
  MPI_Request r[2];
  MPI_Status st[2];
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  if (rank == 0) {
    MPI_Irecv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[1]);
    const int rc = MPI_Waitall(2, r, st);
    if (rc != MPI_ERR_IN_STATUS || st[0].MPI_ERROR != MPI_SUCCESS || st[1].MPI_ERROR == MPI_SUCCESS ||
        r[0] != MPI_REQUEST_NULL) {
      fprintf(stderr, "pmpi_edge_app: errstatus: MPI_Waitall gave %d, statuses %d %d\n", rc, st[0].MPI_ERROR,
              st[1].MPI_ERROR);
      return 1;
    }
  } else {
    if (rank == 1) MPI_Send(buf, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

static int getstatus_case(void) {
  MPI_Request r;
  int flag = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  while (!flag) MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
  usleep(300000);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  return 0;
}

static int merge_case(int rank) {
  const int color = rank % 2;
  MPI_Comm half, inter, merged;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 5, &inter);
  MPI_Intercomm_merge(inter, color, &merged);
  for (int i = 0; i < 3; ++i) MPI_Barrier(merged);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return 0;
}

static int create_group_case(int rank, int size) {
  MPI_Group world, evens;
  MPI_Comm a, b, e = MPI_COMM_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int range[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, range, &evens);
  MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &a);
  MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &b);
  if (rank % 2 == 0) MPI_Comm_create_group(MPI_COMM_WORLD, evens, 8, &e);
  for (int i = 0; i < 2; ++i) {
    MPI_Barrier(b);
    MPI_Barrier(a);
    if (e != MPI_COMM_NULL) MPI_Barrier(e);
  }
  if (e != MPI_COMM_NULL) MPI_Comm_free(&e);
  MPI_Comm_free(&b);
  MPI_Comm_free(&a);
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
  return 0;
}

// Collectives on a communicator made by MPI_Comm_idup: counted, never reported unmatched.
static int idup_case(void) {
  MPI_Comm c;
  MPI_Request r;
  MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; ++i) MPI_Barrier(c);
  MPI_Comm_free(&c);
  return 0;
}

// Every line's calls are counted in the comment at its end (blocking b, init i, test t, wait w, other o).
static int requests_case(int rank) {
  // MPI_STATUSES_IGNORE through a volatile: GCC takes the literal (a null pointer) for an array too small for the
  // statuses (-Wstringop-overflow), while MPI reads it as "no statuses".
  MPI_Status* volatile ignore_statuses = MPI_STATUSES_IGNORE;
  const int peer = rank ^ 1;
  int a = rank, b = -1, got = 0, out = 0, idx[3];
  MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Irecv(&b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]);  // i1
  MPI_Isend(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[3]);  // i2
  MPI_Waitall(4, r, ignore_statuses);                      // w1
  got += b == peer;
  MPI_Request f;
  MPI_Isend(&a, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &f);  // i3
  MPI_Request_free(&f);                                    // o1
  MPI_Recv(&b, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // b1
  got += b == peer;
  MPI_Request p[2];
  MPI_Send_init(&a, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &p[0]);  // o2
  MPI_Recv_init(&b, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &p[1]);  // o3
  for (int i = 0; i < 5; ++i) {
    MPI_Start(&p[1]);                        // i4..i8
    MPI_Start(&p[0]);                        // i9..i13
    MPI_Waitall(2, p, ignore_statuses);  // w2..w6
  }
  MPI_Startall(2, p);                      // i14
  MPI_Waitall(2, p, ignore_statuses);  // w7
  got += b == peer;
  MPI_Request_free(&p[0]);  // o4
  MPI_Request_free(&p[1]);  // o5
  MPI_Request q[6];
  MPI_Ssend_init(&a, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &q[0]);    // o6
  MPI_Bsend_init(&a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &q[1]);    // o7
  MPI_Rsend_init(&a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &q[2]);    // o8
  MPI_Ssend_init_c(&a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &q[3]);  // o9
  MPI_Bsend_init_c(&a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &q[4]);  // o10
  MPI_Rsend_init_c(&a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &q[5]);  // o11
  MPI_Start(&q[0]);                                                     // i15
  MPI_Recv(&b, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // b2
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);                                   // w8
  got += b == peer;
  for (int i = 0; i < 6; ++i) MPI_Request_free(&q[i]);  // o12..o17
  MPI_Request s[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Request send;
  MPI_Irecv(&b, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &s[1]);  // i16
  MPI_Isend(&a, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &send);  // i17
  MPI_Waitsome(3, s, &out, idx, ignore_statuses);         // w9: the receive, the only active request
  got += out == 1 && idx[0] == 1 && b == peer;
  MPI_Wait(&send, MPI_STATUS_IGNORE);                  // w10
  MPI_Testsome(3, s, &out, idx, ignore_statuses);  // t1: none active
  got += out == MPI_UNDEFINED;
  MPI_Waitsome(3, s, &out, idx, ignore_statuses);  // w11: none active
  got += out == MPI_UNDEFINED;
  MPI_Comm d, e;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);  // o18
  MPI_Barrier(d);                    // b3
  MPI_Comm_split(d, 0, rank, &e);    // o19
  MPI_Comm_free(&d);                 // o20
  MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, e);  // b4
  MPI_Comm_free(&e);                 // o21
  MPI_Comm_dup(MPI_COMM_WORLD, &d);  // o22: may get the freed communicators' handle back
  MPI_Barrier(d);                    // b5
  MPI_Comm_free(&d);                 // o23
  if (got != 7) {
    fprintf(stderr, "pmpi_edge_app: requests: rank %d: %d of 7 checks passed\n", rank, got);
    return 1;
  }
  return 0;
}

static void* one_exchange(void* arg) {
  (void)arg;
  int out = 1, in = 0;
  MPI_Request r[2];
  MPI_Status st[2];
  MPI_Irecv(&in, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &r[0]);
  MPI_Isend(&out, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &r[1]);
  MPI_Waitall(2, r, st);
  return in == 1 ? NULL : arg;
}

static int threads_case(int n) {
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    void* failed = NULL;
    if (pthread_create(&t, NULL, one_exchange, NULL) != 0 || pthread_join(t, &failed) != 0 || failed != NULL) {
      fprintf(stderr, "pmpi_edge_app: thread %d failed\n", i);
      return 1;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

static void* one_barrier(void* arg) {
  (void)arg;
  MPI_Barrier(MPI_COMM_WORLD);
  return NULL;
}

// Another thread makes the first MPI call; then the main thread (the one that called MPI_Init_thread) communicates:
// rank 1 waits in MPI_Recv while rank 0 computes for 300 ms, then both make an MPI_Barrier.
static int helper_first_case(int rank) {
  pthread_t t;
  if (pthread_create(&t, NULL, one_barrier, NULL) != 0 || pthread_join(t, NULL) != 0) {
    fprintf(stderr, "pmpi_edge_app: helper_first: the thread failed\n");
    return 1;
  }
  int v = rank;
  if (rank == 0) {
    usleep(300000);
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

// Threads completing nonblocking collectives at once, each on a communicator of its own: MPI hands a request handle
// that one thread's wait has just freed to another thread's next MPI_Ibarrier while the first is still inside its
// MPI_Wait, so the profiler must not find a thread's instance by the handle after the call.
struct nbc_loop {
  MPI_Comm comm;
  int iterations;
};

static void* nbc_thread(void* arg) {
  const struct nbc_loop* loop = arg;
  for (int i = 0; i < loop->iterations; ++i) {
    MPI_Request r;
    MPI_Ibarrier(loop->comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  return NULL;
}

static int nbc_threads_case(int threads, int iterations) {
  pthread_t t[8];
  struct nbc_loop loops[8];
  if (threads < 1 || threads > 8) return 2;
  for (int i = 0; i < threads; ++i) {
    MPI_Comm_dup(MPI_COMM_WORLD, &loops[i].comm);
    loops[i].iterations = iterations;
  }
  int rc = 0;
  for (int i = 0; i < threads; ++i)
    if (pthread_create(&t[i], NULL, nbc_thread, &loops[i]) != 0) return 1;
  for (int i = 0; i < threads; ++i)
    if (pthread_join(t[i], NULL) != 0) rc = 1;
  for (int i = 0; i < threads; ++i) MPI_Comm_free(&loops[i].comm);
  return rc;
}

#ifdef PMPI_EDGE_EXPORT_SC_INIT
// p4est's support library libsc exports sc_init (and many more sc_ names): the program built with this defined exports
// one too, as a program linking libsc does, and must still be profiled.
__attribute__((visibility("default"))) void sc_init(int comm, int catch_signals, int print_backtrace,
                                                   void* log_handler, int log_threshold);
void sc_init(int comm, int catch_signals, int print_backtrace, void* log_handler, int log_threshold) {
  (void)comm, (void)catch_signals, (void)print_backtrace, (void)log_handler, (void)log_threshold;
}
#endif

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  int provided = MPI_THREAD_SINGLE;
  if (strcmp(which, "pmpi_init") == 0) {
    PMPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Barrier(MPI_COMM_WORLD);
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("pmpi_edge_app: %s done\n", which);
    return PMPI_Finalize();
  }
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 0;
  if (strcmp(which, "intercomm") == 0) {
    rc = intercomm_case(rank, size);
  } else if (strcmp(which, "noexit") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("pmpi_edge_app: %s done\n", which);
    fflush(stdout);
    return 4;
  } else if (strcmp(which, "create_group") == 0 && size >= 2) {
    rc = create_group_case(rank, size);
  } else if (strcmp(which, "requests") == 0 && size == 2) {
    rc = requests_case(rank);
  } else if (strcmp(which, "idup") == 0) {
    rc = idup_case();
  } else if (strcmp(which, "merge") == 0 && size >= 2) {
    rc = merge_case(rank);
  } else if (strcmp(which, "plain") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(which, "getstatus") == 0) {
    rc = getstatus_case();
  } else if (strcmp(which, "chdir") == 0 && argc > 2) {
    mkdir(argv[2], 0755);
    if (chdir(argv[2]) != 0) {
      perror("pmpi_edge_app: chdir");
      rc = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(which, "helper_first") == 0 && size >= 2 && provided >= MPI_THREAD_MULTIPLE) {
    rc = helper_first_case(rank);
  } else if (strcmp(which, "errors_return") == 0) {
    rc = errors_return_case(size);
  } else if (strcmp(which, "errstatus") == 0 && size >= 2) {
    rc = errstatus_case(rank);
  } else if (strcmp(which, "nbc_threads") == 0 && argc > 3) {
    if (provided < MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "pmpi_edge_app: nbc_threads needs MPI_THREAD_MULTIPLE, MPI gave %d\n", provided);
      rc = 1;
    } else {
      rc = nbc_threads_case(atoi(argv[2]), atoi(argv[3]));
    }
  } else if (strcmp(which, "threads") == 0 && argc > 2) {
    if (provided < MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "pmpi_edge_app: threads needs MPI_THREAD_MULTIPLE, MPI gave %d\n", provided);
      rc = 1;
    } else {
      rc = threads_case(atoi(argv[2]));
    }
  } else {
    fprintf(stderr,
            "usage: pmpi_edge_app intercomm | noexit | helper_first | errors_return | errstatus | getstatus | merge | "
            "create_group | idup | requests | plain ... | chdir DIR | pmpi_init | "
            "threads N | nbc_threads THREADS ITERATIONS\n");
    rc = 2;
  }
  if (rc == 0 && rank == 0) printf("pmpi_edge_app: %s done\n", which);
  MPI_Finalize();
  return rc;
}
