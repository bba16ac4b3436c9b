/*
 * emu_launch_pool.cc — the host threads that run an emulated launch's CUDA threads
 * (include/tamm_cuda_emu.h, tamm_cuda_emu_pool_run), launched with no stream (on host memory):
 *
 *   emu_launch_pool pool   every (block, thread) pair runs once per launch, never on the
 *                          launching thread, on at most TAMM_CUDA_EMU_THREADS host threads
 *                          (changed between launches); launches from several threads at once,
 *                          each with its own pool; when a launching thread ends, its pool's
 *                          threads end too (the process's thread count comes back);
 *   emu_launch_pool race   one launch whose CUDA threads all store to one element: under
 *                          ThreadSanitizer this must be reported as a data race (the pool's
 *                          hand-over must not order the threads of a launch).  The TSan build's
 *                          ctest expects the report (emu_launch_race.sh).
 * Exit 0 when every check holds; 1 with a message otherwise.
 */
#include <tamm_cuda_emu.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define EXPECT(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "emu_launch_pool: FAIL at line %d: ", __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

enum { MAXTHR = 64 };
struct record {
    unsigned *hits;                 /* per (block, thread) pair: how often it ran */
    pthread_t launcher;             /* the thread that launched */
    unsigned long on_launcher;      /* pairs that ran on the launcher */
    pthread_t seen[MAXTHR];         /* the host threads that ran pairs in this launch */
    unsigned nseen;
    pid_t tids[MAXTHR];             /* the kernel's ids of the threads that ran pairs in any launch */
    unsigned ntids;
    pthread_mutex_t mu;
};

static __global__ void count_k(record *r)
{
    unsigned pair = (blockIdx.x * blockDim.x + threadIdx.x);
    __atomic_fetch_add(&r->hits[pair], 1u, __ATOMIC_RELAXED);
    pthread_t me = pthread_self();
    pthread_mutex_lock(&r->mu);
    if (pthread_equal(me, r->launcher)) r->on_launcher++;
    unsigned i = 0;
    while (i < r->nseen && !pthread_equal(r->seen[i], me)) i++;
    if (i == r->nseen && r->nseen < MAXTHR) r->seen[r->nseen++] = me;
    pid_t tid = (pid_t)syscall(SYS_gettid); /* not reused at once, unlike a pthread_t */
    for (i = 0; i < r->ntids && r->tids[i] != tid; i++) {
    }
    if (i == r->ntids && r->ntids < MAXTHR) r->tids[r->ntids++] = tid;
    pthread_mutex_unlock(&r->mu);
}

static __global__ void race_k(unsigned *x) { *x = threadIdx.x; /* every CUDA thread stores to one element */ }

static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* nlaunch launches of count_k, checked one by one; with vary (one launching thread only: the
 * environment is the process's), TAMM_CUDA_EMU_THREADS goes round 1 to 5.  Returns how many
 * host threads ran CUDA threads, over all the launches. */
static unsigned launches(int nlaunch, int vary)
{
    const unsigned nb = 7, nt = 33;
    record r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.mu, NULL);
    r.hits = (unsigned *)calloc(nb * nt, sizeof *r.hits);
    for (int l = 0; l < nlaunch; l++) {
        if (vary) { /* read at each launch */
            char v[8];
            snprintf(v, sizeof v, "%d", 1 + l % 5);
            setenv("TAMM_CUDA_EMU_THREADS", v, 1);
        }
        memset(r.hits, 0, nb * nt * sizeof *r.hits);
        r.launcher = pthread_self();
        r.on_launcher = 0;
        r.nseen = 0;
        TAMM_CUDA_LAUNCH(count_k, dim3(nb), dim3(nt), (cudaStream_t)0, &r);
        EXPECT(cudaGetLastError() == cudaSuccess, "launch %d failed", l);
        for (unsigned p = 0; p < nb * nt; p++) EXPECT(r.hits[p] == 1, "launch %d: pair %u ran %u times", l, p, r.hits[p]);
        EXPECT(r.on_launcher == 0, "launch %d: %lu pairs ran on the launching thread", l, r.on_launcher);
        EXPECT(r.nseen >= 1 && r.nseen <= 5, "launch %d: %u host threads ran it (at most 5 asked)", l, r.nseen);
        if (failures) break;
    }
    free(r.hits);
    pthread_mutex_destroy(&r.mu);
    return r.ntids;
}

static void *launcher_main(void *arg)
{
    (void)arg;
    launches(200, 0);
    return NULL;
}

static int pool_mode(void)
{
    unsigned ran = launches(500, 1); /* the main thread's pool: it stays until exit */
    EXPECT(ran >= 1 && ran <= 5, "500 launches asking for at most 5 host threads ran on %u threads, not on one "
           "pool's", ran);
    int with_main_pool = threads_now();
    setenv("TAMM_CUDA_EMU_THREADS", "3", 1); /* before the launching threads start */
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++) EXPECT(pthread_create(&t[i], NULL, launcher_main, (void *)i) == 0, "pthread_create");
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    /* the launchers' pools end with them: their threads leave soon after */
    int now = threads_now();
    for (int i = 0; i < 500 && now != with_main_pool; i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        now = threads_now();
    }
    EXPECT(now == with_main_pool, "%d threads 5 s after the launching threads ended (%d before them): their pools' "
           "threads did not end", now, with_main_pool);
    if (failures) return 1;
    printf("emu_launch_pool: 1300 launches on 5 threads' pools, each pair once, never on the launcher; the "
           "pools of ended threads ended\n");
    return 0;
}

static int race_mode(void)
{
    unsigned *x = (unsigned *)calloc(1, sizeof *x);
    setenv("TAMM_CUDA_EMU_THREADS", "4", 1);
    TAMM_CUDA_LAUNCH(race_k, dim3(8), dim3(64), (cudaStream_t)0, x);
    EXPECT(cudaGetLastError() == cudaSuccess, "the launch failed");
    printf("emu_launch_pool: race_k ran (x = %u)\n", *x);
    free(x);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "pool")) return pool_mode();
    if (argc == 2 && !strcmp(argv[1], "race")) return race_mode();
    fprintf(stderr, "usage: emu_launch_pool pool|race\n");
    return 2;
}
