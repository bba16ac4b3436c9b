/* config.c — reading and validating the TAMM_* environment variables. */
#include "config.h"
#include "emu_fail.h"
#include "error.h"
#include <tamm.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bad(const char *var, const char *val, const char *expected)
{
    fprintf(stderr, "tamm: error: %s: invalid value '%s' (expected %s)\n", var, val, expected);
    return TAMM_EINVAL;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    /* digits, with an optional '-': strtol alone would also take leading blanks and '+' (" 4" was
     * accepted while "4 " was refused) */
    if (!s || !*s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])))) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *var, int *out)
{
    const char *s = getenv(var);
    if (!s) return TAMM_OK;
    if (!strcmp(s, "0") || !strcmp(s, "") ) { *out = 0; return TAMM_OK; }
    if (!strcmp(s, "1")) { *out = 1; return TAMM_OK; }
    return bad(var, s, "0 or 1");
}

int tamm__parse_size(const char *s, size_t *out, double *pct)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)s[0])) return -1;
    double v = strtod(s, &end);
    if (errno || end == s) return -1;
    if (*end == '%' && end[1] == 0) {
        if (v <= 0 || v > 100) return -1;
        *pct = v;
        *out = 0;
        return 0;
    }
    double mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1024.0; break;
        case 'M': mul = 1024.0 * 1024; break;
        case 'G': mul = 1024.0 * 1024 * 1024; break;
        case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
        default: return -1;
        }
        end++;
        if (*end == 'B' || *end == 'b') end++;
        if (*end) return -1;
    }
    double bytes = v * mul;
    if (bytes < 1 || bytes > 1e19) return -1;
    *out = (size_t)bytes;
    if (pct) *pct = 0;
    return 0;
}

static const struct { const char *name; int cpu; int v; } sched_names[] = {
    { "ws", 1, TAMM_SCHED_WS }, { "fifo", 1, TAMM_SCHED_FIFO }, { "eager", 1, TAMM_SCHED_FIFO },
    { "prio", 1, TAMM_SCHED_PRIO }, { "priority", 1, TAMM_SCHED_PRIO },
    { "eft", 0, TAMM_GPOL_EFT }, { "round-robin", 0, TAMM_GPOL_RR }, { "rr", 0, TAMM_GPOL_RR },
    { "stream-aware", 0, TAMM_GPOL_STREAM }, { "min-transfer-size", 0, TAMM_GPOL_MINSIZE },
    { "minmin-transfer-time", 0, TAMM_GPOL_MINMIN }, { "min-min", 0, TAMM_GPOL_MINMIN },
    { "minmax-transfer-time", 0, TAMM_GPOL_MINMAX }, { "min-max", 0, TAMM_GPOL_MINMAX },
};

const char *tamm__gpu_policy_name(tamm_gpu_policy p)
{
    for (size_t i = 0; i < sizeof sched_names / sizeof sched_names[0]; i++)
        if (!sched_names[i].cpu && sched_names[i].v == (int)p) return sched_names[i].name;
    return "?";
}

int tamm__parse_sched(const char *s, tamm__sched_kind *cpu, tamm_gpu_policy *gpu)
{
    int have_cpu = 0, have_gpu = 0;
    *cpu = TAMM_SCHED_WS;
    *gpu = TAMM_GPOL_EFT;
    if (!s || !*s) return 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0, k = sizeof sched_names / sizeof sched_names[0];
        for (; i < k; i++)
            if (strlen(sched_names[i].name) == n && !strncmp(sched_names[i].name, p, n)) break;
        if (i == k) return -1;
        if (sched_names[i].cpu) {
            if (have_cpu++) return -1;
            *cpu = (tamm__sched_kind)sched_names[i].v;
        } else {
            if (have_gpu++) return -1;
            *gpu = (tamm_gpu_policy)sched_names[i].v;
        }
        if (!e) return 0;
        p = e + 1;
    }
}

/* TAMM_CUDA_DEVICES: local, all, or a list of distinct device ordinals (0..7). */
static int parse_devices(const char *s, tamm__config *cfg)
{
    if (!strcmp(s, "local")) { cfg->cuda_dev_mode = TAMM_CDEV_LOCAL; return 0; }
    if (!strcmp(s, "all")) { cfg->cuda_dev_mode = TAMM_CDEV_ALL; return 0; }
    cfg->cuda_dev_mode = TAMM_CDEV_LIST;
    cfg->cuda_ndev_list = 0;
    for (const char *p = s;;) {
        char item[16];
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        long v;
        if (n == 0 || n >= sizeof item || cfg->cuda_ndev_list == 8) return -1;
        memcpy(item, p, n);
        item[n] = 0;
        if (parse_int(item, 0, 7, &v)) return -1;
        for (int i = 0; i < cfg->cuda_ndev_list; i++)
            if (cfg->cuda_dev_list[i] == (int)v) return -1;
        cfg->cuda_dev_list[cfg->cuda_ndev_list++] = (int)v;
        if (!e) return 0;
        p = e + 1;
    }
}

int tamm__config_read(tamm__config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->cores = ncpu > 0 ? (int)ncpu : 1;
    cfg->num_workers = cfg->cores;
    cfg->hugepages = 1;
    cfg->num_gpus = -1;
    cfg->cuda_streams = 4;
    cfg->emu_kernel_timeout = 60;
    cfg->cuda_early = 1;
    cfg->cuda_prefetch = 1;
    cfg->local_size = 1;
    const char *s;
    long v;
    int rc;

    if ((s = getenv("TAMM_NUM_WORKERS"))) {
        if (parse_int(s, 1, 1024, &v)) return bad("TAMM_NUM_WORKERS", s, "an integer from 1 to 1024");
        cfg->num_workers = (int)v;
    }
    if ((s = getenv("TAMM_NUM_GPUS"))) {
        if (parse_int(s, 0, 8, &v)) return bad("TAMM_NUM_GPUS", s, "an integer from 0 to 8");
        cfg->num_gpus = (int)v;
    }
    if ((s = getenv("TAMM_SCHED")) && tamm__parse_sched(s, &cfg->sched, &cfg->gpu_sched))
        return bad("TAMM_SCHED", s, "a CPU policy (ws, fifo, prio), a device policy (eft, round-robin, stream-aware, "
                   "min-transfer-size, minmin-transfer-time, minmax-transfer-time), or one of each separated by a comma");
    if ((s = getenv("TAMM_CUDA_STREAMS"))) {
        if (parse_int(s, 1, 8, &v)) return bad("TAMM_CUDA_STREAMS", s, "an integer from 1 to 8");
        cfg->cuda_streams = (int)v;
    }
    {   /* TAMM_CUDA_EMU; TAMM_CUDA_FAKE is its old name */
        const char *var = getenv("TAMM_CUDA_EMU") ? "TAMM_CUDA_EMU" : "TAMM_CUDA_FAKE";
        if ((s = getenv(var))) {
            if (parse_int(s, 0, 8, &v)) return bad(var, s, "an integer from 0 to 8 (emulated GPUs, for tests)");
            cfg->fake_gpus = (int)v;
        }
    }
    if ((s = getenv("TAMM_CUDA_EMU_DELAY"))) {
        if (parse_int(s, 0, 1000000, &v)) return bad("TAMM_CUDA_EMU_DELAY", s, "microseconds from 0 to 1000000");
        cfg->emu_delay_us = (unsigned)v;
    }
    if ((s = getenv("TAMM_CUDA_EMU_SEED"))) {
        if (parse_int(s, 0, 2147483647L, &v)) return bad("TAMM_CUDA_EMU_SEED", s, "an integer from 0 to 2147483647");
        cfg->emu_seed = (unsigned long long)v;
    }
    if ((s = getenv("TAMM_CUDA_EMU_MEMORY")) && *s) {
        double pct = 0;
        if (tamm__parse_size(s, &cfg->emu_memory, &pct) || pct > 0 || cfg->emu_memory == 0)
            return bad("TAMM_CUDA_EMU_MEMORY", s, "bytes (more than 0), with an optional K/M/G suffix");
    }
    if ((s = getenv("TAMM_CUDA_EMU_SKIP_WAIT")) && *s) {
        if (!strcmp(s, "all")) cfg->emu_skip_wait = -1;
        else if (parse_int(s, 0, 2147483647L, &v)) return bad("TAMM_CUDA_EMU_SKIP_WAIT", s, "all, or n: drop the n-th stream wait (a test hook)");
        else cfg->emu_skip_wait = v;
    }
    if ((s = getenv("TAMM_CUDA_EMU_KERNEL_TIMEOUT")) && *s) {
        if (parse_int(s, 0, 86400, &v)) return bad("TAMM_CUDA_EMU_KERNEL_TIMEOUT", s, "seconds from 0 (no limit) to 86400");
        cfg->emu_kernel_timeout = (unsigned)v;
    }
    if ((s = getenv("TAMM_CUDA_EMU_FAIL")) && tamm__emu_fail_parse(s, NULL) < 0)
        return bad("TAMM_CUDA_EMU_FAIL", s, "call:n[:sticky],... with call one of alloc free host_alloc stream_create "
                   "event_create h2d d2h d2d zero record wait query launch blas_create");
    if ((rc = parse_bool("TAMM_SEQUENTIAL", &cfg->sequential))) return rc;
    if ((s = getenv("TAMM_ON_ERROR"))) {
        if (!strcmp(s, "abort") || !strcmp(s, "")) cfg->on_error = TAMM_ONERR_ABORT;
        else if (!strcmp(s, "return")) cfg->on_error = TAMM_ONERR_RETURN;
        else return bad("TAMM_ON_ERROR", s, "abort or return");
    }
    if ((rc = parse_bool("TAMM_STATS", &cfg->stats))) return rc;
    if ((rc = parse_bool("TAMM_CUDA_EARLY", &cfg->cuda_early))) return rc;
    if ((rc = parse_bool("TAMM_CUDA_PREFETCH", &cfg->cuda_prefetch))) return rc;
    if ((rc = parse_bool("TAMM_HUGEPAGES", &cfg->hugepages))) return rc;
    if ((rc = parse_bool("TAMM_CHECK_ACCESS", &cfg->check_access))) return rc;
    if ((rc = parse_bool("TAMM_REPRODUCIBLE", &cfg->reproducible))) return rc;
    if ((s = getenv("TAMM_TRACE")) && *s) cfg->trace_file = s;
    if ((s = getenv("TAMM_DAG")) && *s) cfg->dag_file = s;
    double pct = 0;
    if ((s = getenv("TAMM_MEMORY_LIMIT")) && *s) {
        if (tamm__parse_size(s, &cfg->memory_limit, &pct))
            return bad("TAMM_MEMORY_LIMIT", s, "bytes, with an optional K/M/G suffix, or a percentage like 50%");
        if (pct > 0) {
            long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
            cfg->memory_limit = (size_t)((double)pages * (double)psz * pct / 100.0);
        }
    }
    if ((s = getenv("TAMM_CUDA_MEMORY_LIMIT")) && *s) {
        if (tamm__parse_size(s, &cfg->cuda_memory_limit, &cfg->cuda_memory_pct))
            return bad("TAMM_CUDA_MEMORY_LIMIT", s, "bytes, with an optional K/M/G suffix, or a percentage like 50%");
    }
    if ((s = getenv("TAMM_CUDA_DEVICES")) && *s && parse_devices(s, cfg))
        return bad("TAMM_CUDA_DEVICES", s, "local (GPUs split among the ranks of a node), all (every rank uses every "
                   "GPU), or a comma-separated list of distinct device numbers from 0 to 7");
    if (cfg->sequential) cfg->num_workers = 1;
    return TAMM_OK;
}
