/*
 * test_gpu_policy.c — the device-selection policies (rt/gpu/sched_gpu.c) as pure
 * decisions: given what each GPU holds and does, which unit gets the task;
 * TAMM_SCHED parsing; the duration table EFT learns from; the rank-to-GPU
 * mapping under MPI (tamm__gpu_map); the order of a CUDA worker's queue.
 */
#include "harness.h"
#include "config.h"
#include "gpu.h"
#include "taskq.h"
#include <string.h>

static tamm__pick_in base(int ngpu)
{
    tamm__pick_in in;
    memset(&in, 0, sizeof in);
    in.ngpu = ngpu;
    in.has_cpu = in.has_gpu = 1;
    for (int g = 0; g < ngpu; g++) in.fits[g] = 1;
    in.dur_gpu = in.dur_cpu = -1;
    return in;
}

int main(void)
{
    /* round-robin: rotates over the GPUs that can hold the task */
    tamm__pick_in in = base(3);
    in.has_cpu = 0;
    for (unsigned r = 0; r < 6; r++) {
        in.rr = r;
        CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_RR, &in), (int)(r % 3) + 1);
    }
    in.fits[1] = 0;
    in.rr = 1;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_RR, &in), 3); /* GPU 1 skipped */

    /* stream-aware: fewest tasks queued or running; ties to the lowest */
    in = base(3);
    in.busy[0] = 4; in.busy[1] = 1; in.busy[2] = 1;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_STREAM, &in), 2);
    in.busy[1] = 2;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_STREAM, &in), 3);

    /* min-transfer-size: fewest bytes to move, then the least busy */
    in = base(2);
    in.missing[0] = 4096; in.missing[1] = 1024;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_MINSIZE, &in), 2);
    in.missing[1] = 4096; in.busy[0] = 3;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_MINSIZE, &in), 2);

    /* min-min vs min-max transfer time: differ when sources differ in speed */
    in = base(2);
    in.xfer_min[0] = 10; in.xfer_max[0] = 100;
    in.xfer_min[1] = 20; in.xfer_max[1] = 30;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_MINMIN, &in), 1);
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_MINMAX, &in), 2);

    /* the policies send a task with a CPU variant to the CPU only when
     * the chosen GPU is saturated and a CPU worker is idle */
    in = base(1);
    in.busy[0] = 1000;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_STREAM, &in), 1);
    in.cpu_idle = 1;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_STREAM, &in), 0);
    in.busy[0] = 1;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_STREAM, &in), 1);

    /* a task whose blocks fit no GPU: the CPU, or nowhere */
    in = base(2);
    in.fits[0] = in.fits[1] = 0;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 0);
    in.has_cpu = 0;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), -1);
    in = base(2);
    in.has_gpu = 0;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_MINMIN, &in), 0);

    /* EFT: earliest finish = available + transfers + duration */
    in = base(2);
    in.dur_gpu = 100; in.dur_cpu = 1000;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 1);   /* GPU 0 free: 100 < 1000 */
    in.avail[0] = 5000; in.avail[1] = 200;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 2);   /* GPU 1 done at 300 */
    in.avail[1] = 2000;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 0);   /* CPU done at 1000 */
    in.cpu_avail = 5000;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 2);
    in.avail[1] = 0; in.xfer_min[1] = 9000; in.cpu_avail = 0;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 0);   /* the transfers make the GPU later */
    in.xfer_cpu = 20000;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 1);   /* ... unless the CPU must fetch more (GPU 0: 5100) */
    /* unmeasured durations: the other kind's, or the default; queued work counts */
    in = base(1);
    CHECK(tamm__eft_duration(&in, 1) == TAMM_EFT_DEFAULT_NS);
    in.dur_cpu = 50;
    CHECK(tamm__eft_duration(&in, 1) == 50);
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 1);
    in.avail[0] = 60;
    CHECK_EQ_INT(tamm__gpu_pick(TAMM_GPOL_EFT, &in), 0);

    /* the duration table */
    tamm__perf_reset();
    static const char la[] = "gemm", lb[] = "other";
    CHECK(tamm__perf_estimate(la, 4096, 1) < 0);
    tamm__perf_record(la, 4096, 1, 1e9); /* the first run on GPU 0 (its kernels' loading): not recorded */
    CHECK(tamm__perf_estimate(la, 4096, 1) < 0);
    tamm__perf_record(la, 4096, 1, 100);
    tamm__perf_record(la, 5000, 1, 300); /* same power-of-two size class */
    CHECK(tamm__perf_estimate(la, 4097, 1) == 200);
    tamm__perf_record(la, 4096, 2, 5e8); /* the first run on GPU 1: not recorded either */
    CHECK(tamm__perf_estimate(la, 4096, 1) == 200);
    tamm__perf_record(la, 4096, 2, 500);
    CHECK(tamm__perf_estimate(la, 4096, 1) == 300);
    CHECK(tamm__perf_estimate(la, 4096, 0) < 0);      /* other kind */
    CHECK(tamm__perf_estimate(la, 100000, 1) < 0);    /* other size */
    CHECK(tamm__perf_estimate(lb, 4096, 1) < 0);      /* other label */
    tamm__perf_record(NULL, 10, 0, 7);
    CHECK(tamm__perf_estimate(NULL, 10, 0) == 7);

    /* a CUDA worker's queue: by priority, FIFO among equal priorities */
    {
        static const int prio[] = { 0, 0, 5, 0, 5, 9, -1, 5, 0 };
        static const int want[] = { 5, 2, 4, 7, 0, 1, 3, 8, 6 }; /* the order of the pushes to pop */
        enum { NP = sizeof prio / sizeof prio[0] };
        tamm__task_s ts[NP];
        tamm__taskq q = TAMM_TASKQ_INIT;
        memset(ts, 0, sizeof ts);
        for (int i = 0; i < NP; i++) {
            ts[i].priority = prio[i];
            tamm__taskq_push_prio(&q, &ts[i]);
        }
        CHECK_EQ_INT(atomic_load(&q.n), NP);
        for (int i = 0; i < NP; i++) CHECK(tamm__taskq_pop(&q) == &ts[want[i]]);
        CHECK(tamm__taskq_pop(&q) == NULL && q.tail == NULL);
    }

    /* TAMM_SCHED */
    tamm__sched_kind c;
    tamm_gpu_policy p;
    CHECK_EQ_INT(tamm__parse_sched("minmax-transfer-time", &c, &p), 0);
    CHECK(c == TAMM_SCHED_WS && p == TAMM_GPOL_MINMAX);
    CHECK_EQ_INT(tamm__parse_sched("fifo,stream-aware", &c, &p), 0);
    CHECK(c == TAMM_SCHED_FIFO && p == TAMM_GPOL_STREAM);
    CHECK_EQ_INT(tamm__parse_sched("round-robin,prio", &c, &p), 0);
    CHECK(c == TAMM_SCHED_PRIO && p == TAMM_GPOL_RR);
    CHECK_EQ_INT(tamm__parse_sched("ws", &c, &p), 0);
    CHECK(c == TAMM_SCHED_WS && p == TAMM_GPOL_EFT);
    CHECK_EQ_INT(tamm__parse_sched("eft,", &c, &p), -1);
    CHECK_EQ_INT(tamm__parse_sched("ws,ws", &c, &p), -1);
    CHECK_EQ_INT(tamm__parse_sched("minmin", &c, &p), -1);
    for (int k = 0; k < TAMM_GPOL_COUNT; k++) {
        CHECK_EQ_INT(tamm__parse_sched(tamm__gpu_policy_name((tamm_gpu_policy)k), &c, &p), 0);
        CHECK_EQ_INT(p, k);
    }

    /* rank-to-GPU mapping: devices found, local rank, local size -> devices and sharers */
    int dev[TAMM_MAX_GPUS], share[TAMM_MAX_GPUS], bad = -1;
    CHECK_EQ_INT(tamm__gpu_map(4, 0, 1, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 4); /* one rank: every GPU */
    CHECK(dev[0] == 0 && dev[3] == 3 && share[0] == 1 && share[3] == 1);
    CHECK_EQ_INT(tamm__gpu_map(4, 1, 2, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 2); /* 2 each, contiguous */
    CHECK(dev[0] == 2 && dev[1] == 3 && share[0] == 1 && share[1] == 1);
    CHECK_EQ_INT(tamm__gpu_map(3, 0, 2, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 1); /* 3 over 2 ranks: 1 + 2 */
    CHECK(dev[0] == 0 && share[0] == 1);
    CHECK_EQ_INT(tamm__gpu_map(3, 1, 2, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 2);
    CHECK(dev[0] == 1 && dev[1] == 2);
    CHECK_EQ_INT(tamm__gpu_map(2, 1, 2, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 1); /* one each */
    CHECK(dev[0] == 1 && share[0] == 1);
    CHECK_EQ_INT(tamm__gpu_map(1, 1, 2, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 1); /* one, shared by two */
    CHECK(dev[0] == 0 && share[0] == 2);
    /* 2 devices, 5 ranks: ranks 0, 2, 4 on device 0 (3 sharers), ranks 1, 3 on device 1 (2) */
    CHECK_EQ_INT(tamm__gpu_map(2, 4, 5, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 1);
    CHECK(dev[0] == 0 && share[0] == 3);
    CHECK_EQ_INT(tamm__gpu_map(2, 3, 5, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 1);
    CHECK(dev[0] == 1 && share[0] == 2);
    CHECK_EQ_INT(tamm__gpu_map(0, 0, 2, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), 0); /* none found */
    CHECK_EQ_INT(tamm__gpu_map(2, 1, 4, TAMM_CDEV_ALL, NULL, 0, dev, share, &bad), 2); /* all: each shared by 4 */
    CHECK(dev[0] == 0 && dev[1] == 1 && share[0] == 4 && share[1] == 4);
    int list[2] = { 3, 1 };
    CHECK_EQ_INT(tamm__gpu_map(4, 1, 2, TAMM_CDEV_LIST, list, 2, dev, share, &bad), 2); /* the list, in its order */
    CHECK(dev[0] == 3 && dev[1] == 1 && share[0] == 1);
    CHECK_EQ_INT(tamm__gpu_map(2, 0, 1, TAMM_CDEV_LIST, list, 2, dev, share, &bad), -1); /* device 3 not found */
    CHECK_EQ_INT(bad, 3);
    CHECK_EQ_INT(tamm__gpu_map(12, 0, 1, TAMM_CDEV_LOCAL, NULL, 0, dev, share, &bad), TAMM_MAX_GPUS); /* capped */
    return test_summary();
}
