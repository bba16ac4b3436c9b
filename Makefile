# tamm — convenience targets around CMake, for a fresh Debian 12 machine.
#
#   make deps      install the Debian packages that are missing (apt-get)
#   make build     configure (Release) and build in build/
#   make run       deps + build + run samples/gemm.c compiled by tammcc (and gemm_explicit)
#   make test      deps + three test suites: Release (build/), ASan+UBSan
#                  (build-asan/), TSan (build-tsan/), each suite's build overlapping the
#                  previous suite's tests (tests/run_suites.sh); ends with "N passed, N failed"
#   make gpu-check on a machine with an NVIDIA GPU: build for it (build-gpu/), run every
#                  gpu-labelled test on the device (a skip fails), print the speed table
#                  against cuBLAS / cuSOLVER (bench/gpu/gpu_check.sh)
#   make fuzz      the soundness fuzzer, longer than CI's: FUZZ_PROGRAMS (2000)
#                  random pragma programs vs plain cc at 1/2/4 workers and
#                  FUZZ_MPI_PROGRAMS (200) at 2 and 3 ranks, TAMM_CHECK_ACCESS=1
#   make mutants   mutation testing: each mutant of tests/mutants/ (a small bug, as a patch)
#                  applied in turn to a scratch copy of the tree ($(BUILD_DIR)/mutants/src,
#                  built Release in $(BUILD_DIR)/mutants/build), the Release tests its file
#                  lists run on it; prints which tests kill each mutant (each needs two)
#   make install   cmake --install build --prefix $(PREFIX)   (default /usr/local)
#   make clean     remove the build directories
#
# Variables: PREFIX, JOBS (default: number of cores), BUILD_DIR, ASAN_DIR,
# TSAN_DIR, CMAKE_ARGS (extra -D options for every configure), CTEST_ARGS.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DEFAULT_GOAL := all

PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_DIR  ?= build
ASAN_DIR   ?= build-asan
TSAN_DIR   ?= build-tsan
CMAKE_ARGS ?=
# ctest runs JOBS tests at once (MPI tests reserve their ranks' worth of slots)
CTEST_ARGS ?= -j$(JOBS)

DEPS := build-essential cmake pkg-config libclang-14-dev llvm-14-dev clang-14 \
        libopenmpi-dev openmpi-bin libopenblas-dev liblapacke-dev libstarpu-dev \
        starpu-examples libomp-14-dev valgrind

# sudo only when not root and sudo exists.
SUDO := $(shell [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null 2>&1 && echo sudo; })

ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:atexit_sleep_ms=50:suppressions=$(CURDIR)/tests/tsan.supp

.PHONY: all deps build run test install clean test-summary tsan-probe gpu-check

all: build

# ---------------------------------------------------------------- deps
deps:
	@missing=""; \
	for p in $(DEPS); do \
	  dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then \
	  echo "deps: all $(words $(DEPS)) packages are installed"; \
	else \
	  echo "deps: installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

# ---------------------------------------------------------------- build
build:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS)

# ---------------------------------------------------------------- run
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory build
	@echo "=== samples/gemm.c, compiled by tammcc (build/samples/gemm), on all cores"
	@./$(BUILD_DIR)/samples/gemm
	@echo "=== samples/gemm_explicit.c (the explicit task API)"
	@./$(BUILD_DIR)/samples/gemm_explicit

# ---------------------------------------------------------------- gpu-check
# Needs a GPU, nvcc and CMake; no Debian packages are installed (GPU machines
# often have no network), libclang is not needed (the tammcc output it builds
# is pregenerated in tests/rt/gpu/pregen and bench/gpu/pregen).
gpu-check:
	@bash bench/gpu/gpu_check.sh

# ---------------------------------------------------------------- test
# tests/run_suites.sh configures, builds and runs each suite (the next suite's build
# runs at nice 19 during the current suite's ctest) and records "PASSED FAILED STATUS"
# in DIR/tamm-test-result; test-summary adds them up.
test: deps
	@mkdir -p $(BUILD_DIR) && date +%s > $(BUILD_DIR)/tamm-test-start
	@rm -f $(BUILD_DIR)/tamm-test-result $(ASAN_DIR)/tamm-test-result $(TSAN_DIR)/tamm-test-result
	@$(MAKE) --no-print-directory tsan-probe || true
	@env BUILD_DIR="$(BUILD_DIR)" ASAN_DIR="$(ASAN_DIR)" TSAN_DIR="$(TSAN_DIR)" JOBS="$(JOBS)" \
	    CMAKE_ARGS="$(CMAKE_ARGS)" CTEST_ARGS="$(CTEST_ARGS)" ASAN_ENV="$(ASAN_ENV)" TSAN_ENV="$(TSAN_ENV)" \
	    TSAN_WRAP_FILE="$(TSAN_DIR)/tamm-tsan-wrap" bash tests/run_suites.sh || true
	@$(MAKE) --no-print-directory test-summary

# ThreadSanitizer (GCC 12's libtsan) aborts with "unexpected memory mapping"
# on kernels with a high vm.mmap_rnd_bits.  Probe it; if it fails, retry with
# ASLR off (setarch -R) and, when that works, run the TSan ctest under it.
tsan-probe:
	@mkdir -p $(TSAN_DIR); rm -f $(TSAN_DIR)/tamm-tsan-wrap; \
	printf '%s\n' '#include <pthread.h>' 'static int x;' \
	  'static void *f(void *a) { __atomic_fetch_add(&x, 1, __ATOMIC_SEQ_CST); return a; }' \
	  'int main(void) { pthread_t t; pthread_create(&t, 0, f, 0); pthread_join(t, 0); return x != 1; }' \
	  > $(TSAN_DIR)/tsan-probe.c; \
	if ! $(CC) -fsanitize=thread -pthread $(TSAN_DIR)/tsan-probe.c -o $(TSAN_DIR)/tsan-probe; then \
	  echo "tsan-probe: cannot build a -fsanitize=thread program"; exit 0; fi; \
	if $(TSAN_DIR)/tsan-probe > $(TSAN_DIR)/tsan-probe.log 2>&1; then \
	  echo "tsan-probe: ThreadSanitizer works as is"; \
	elif setarch "$$(uname -m)" -R $(TSAN_DIR)/tsan-probe > /dev/null 2>&1; then \
	  echo "setarch $$(uname -m) -R" > $(TSAN_DIR)/tamm-tsan-wrap; \
	  echo "tsan-probe: ThreadSanitizer fails here ($$(head -n 1 $(TSAN_DIR)/tsan-probe.log)); running the TSan tests under 'setarch $$(uname -m) -R'"; \
	else \
	  echo "tsan-probe: ThreadSanitizer fails here, even with ASLR off:"; cat $(TSAN_DIR)/tsan-probe.log; \
	  echo "tsan-probe: try 'sysctl -w vm.mmap_rnd_bits=28' (as root) and run make test again"; \
	fi

test-summary:
	@passed=0; failed=0; bad=0; \
	for s in release:$(BUILD_DIR) asan:$(ASAN_DIR) tsan:$(TSAN_DIR); do \
	  name=$${s%%:*}; dir=$${s#*:}; \
	  if [ -f "$$dir/tamm-test-result" ]; then read -r p f st < "$$dir/tamm-test-result"; \
	  else p=0; f=1; st=not-run; fi; \
	  printf '%-8s %-14s %4d passed, %4d failed  (%s)\n' "$$name" "$$dir" "$$p" "$$f" "$$st"; \
	  passed=$$((passed + p)); failed=$$((failed + f)); [ "$$st" = ok ] || bad=1; \
	done; \
	echo "$$passed passed, $$failed failed"; \
	if [ -f $(BUILD_DIR)/tamm-test-start ]; then echo "make test: $$(( $$(date +%s) - $$(cat $(BUILD_DIR)/tamm-test-start) )) s (three builds and suites, after make deps)"; rm -f $(BUILD_DIR)/tamm-test-start; fi; \
	[ $$bad -eq 0 ]

# ---------------------------------------------------------------- fuzz
# The soundness fuzzer as a longer campaign than CI's (CI checks a few hundred
# programs per build): FUZZ_PROGRAMS random pragma programs from FUZZ_SEED, each
# built by plain cc (the oracle) and by tammcc and run at 1, 2 and 4 workers,
# then FUZZ_MPI_PROGRAMS of them at 2 and 3 MPI ranks; every tammcc run under
# TAMM_CHECK_ACCESS=1.  Failing programs are kept in build/fuzz-failures.
FUZZ_PROGRAMS     ?= 2000
FUZZ_MPI_PROGRAMS ?= 200
FUZZ_SEED         ?= 100000
FUZZ_ENV = CC="$$(command -v mpicc || echo cc)" CFLAGS="-std=c11 -O1 -Wall -Wextra -Werror" \
           TAMM_INCLUDE=$(CURDIR)/include TAMM_LIB=$(CURDIR)/$(BUILD_DIR)/rt/libtammrt.a \
           GEN=$(CURDIR)/$(BUILD_DIR)/tests/tammcc/diff/gen_random_program TAMMCC=$(CURDIR)/$(BUILD_DIR)/tammcc/tammcc \
           FAILDIR=$(CURDIR)/$(BUILD_DIR)/fuzz-failures TAMM_CHECK_ACCESS=1 JOBS=$(JOBS) \
           OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

.PHONY: fuzz
fuzz: deps build
	@echo "=== fuzz: $(FUZZ_PROGRAMS) programs from seed $(FUZZ_SEED) at 1, 2, 4 workers"
	@env $(FUZZ_ENV) WORKERS="1 2 4" sh tests/tammcc/diff/random_differential.sh $(FUZZ_PROGRAMS) $(FUZZ_SEED)
	@echo "=== fuzz: $(FUZZ_MPI_PROGRAMS) programs at 2 and 3 MPI ranks (2 workers each)"
	@env $(FUZZ_ENV) WORKERS=2 RANKS="2 3" JOBS=1 MPIRUN="mpirun --oversubscribe --bind-to none" \
	  sh tests/tammcc/diff/random_differential.sh $(FUZZ_MPI_PROGRAMS) $(FUZZ_SEED)

# ---------------------------------------------------------------- mutants
# tests/mutants/run_mutants.py: one scratch copy and one build directory for all the
# mutants (a mutant rebuilds the objects of the files it changes and relinks); every test
# of a mutant's list runs (ctest -R, two at a time), so that its killers can be counted.
.PHONY: mutants
mutants: deps
	@python3 tests/mutants/run_mutants.py --source $(CURDIR) --work $(CURDIR)/$(BUILD_DIR)/mutants --jobs $(JOBS)

# ---------------------------------------------------------------- install
install:
	@$(MAKE) --no-print-directory build
	@if [ -n "$(SUDO)" ] && ! { mkdir -p "$(PREFIX)" 2>/dev/null && [ -w "$(PREFIX)" ]; }; then \
	  echo "$(SUDO) cmake --install $(BUILD_DIR) --prefix $(PREFIX)"; \
	  $(SUDO) cmake --install $(BUILD_DIR) --prefix "$(PREFIX)"; \
	else \
	  echo "cmake --install $(BUILD_DIR) --prefix $(PREFIX)"; \
	  cmake --install $(BUILD_DIR) --prefix "$(PREFIX)"; \
	fi
	@case "$(PREFIX)" in /usr|/usr/local) $(SUDO) ldconfig 2>/dev/null || true;; esac

# ---------------------------------------------------------------- clean
clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR)
