# sidecore — the two commands of a fresh machine:
#   make demo   install missing Debian packages, configure, build, then `sidecore study` on apps/md: the model's
#               prediction against the measured dedicated-core run (docs/study.md)
#   make test   the same set-up, then the whole test suite, plainly built and under ASan+UBSan (ASAN=0: plain only)
#   make overlap  the overlap micro-benchmark (sidecore, raw libfabric and MPICH, 2 ranks; bench/README.md)
# Both are idempotent. BUILD=dir and BUILD_TYPE=Debug|Release|RelWithDebInfo|Asan|Tsan choose the build.
#   make fuzz   the libFuzzer harnesses of every input reader, FUZZ_SECONDS each (fuzz/README.md)

BUILD      ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= $(shell nproc)
# Tests labelled known-bug document open provider bugs (docs/runtime.md); `ctest -L known-bug` runs them. The
# exhaustive collectives matrix (1-8 ranks, up to 16 MiB) is labelled coll-full: `ctest -L coll-full` runs it.
# A failed test is run once more (--repeat until-pass:2); its first failure stays in the output (the multi-rank
# tests run real transports on a 2-core machine).
CTEST_ARGS ?=
# The fuzz harnesses (fuzz/, built with clang in their own folder): `make test` builds them and runs each corpus
# once plus SIDECORE_FUZZ_SECONDS of fuzzing per harness (FUZZ=0 leaves them out); `make fuzz` runs longer.
FUZZ         ?= 1
FUZZ_BUILD   ?= $(BUILD)/fuzz
FUZZ_SECONDS ?= 300
# `make test` also builds the ASan+UBSan configuration (no benchmarks) and runs the whole suite under it (ASAN=0
# leaves it out): CI runs both within its time budget. Under ASan the multi-rank tests run at 2 ranks, and the
# collectives at 3 as well on shm (a rank count that is not a power of two takes the schedules' other paths, which
# do not depend on the provider); the plain suite runs 3 and 4 ranks everywhere. Also left to the plain suite: the
# 65535 region paths of Regions.APathThatCannotBeInterned... (2.5 s plain, 24 s under ASan), the two-namespace tcp
# test, tcp without the node rings (tcp and shm without them run under ASan), the study's benchmark smoke test (the
# study's own end-to-end test runs under ASan), the packaging tests (outside projects built against the library:
# nothing of sidecore runs there that the other tests do not run) and the report in Chromium (the report's writer
# runs under ASan in the other report tests). A multi-rank test holds both cores of a 2-core machine, so each one
# left out saves its whole run time.
ASAN         ?= 1
ASAN_BUILD   ?= build-asan
# The exclusions' regex, in pieces joined with no space between them (each ends where the next begins).
ASAN_EXCLUDE_1 = \.np4|^(runtime\.(p2p|api|auto|peer_failure)|apps|instrument)[a-z_]*\..*\.np3
ASAN_EXCLUDE_2 = |^runtime\.coll\..*\.tcp\.np3|two_hosts|\.tcp\.nofast\.|^bench\.run_study\.smoke
ASAN_EXCLUDE_3 = |^packaging\.|^model\.report\.chromium|^Regions\.APathThatCannotBeInterned
ASAN_CTEST_ARGS ?= --exclude-regex '$(ASAN_EXCLUDE_1)$(ASAN_EXCLUDE_2)$(ASAN_EXCLUDE_3)'

# CI (CI=true, as .ci/run sets it) builds with line tables only (-g1: backtraces and sanitizer reports keep file and
# line, a debugger sees no variables) and compiles each target's files in a few combined units (CMAKE_UNITY_BUILD):
# a fresh clone's `make test` took 25 min instead of 50 on a 2-core machine (docs/results.md). A developer's build
# keeps full -g and one object per file (a change recompiles one file, not its unity group).
# The main project's builds also compile the tests' own code at -O0 and the model at -O1 (SIDECORE_QUICK_BUILD,
# CMakeLists.txt); the runtime, the apps and the benchmarks keep -O2.
ifeq ($(CI),true)
CI_CMAKE ?= -DSIDECORE_DEBUG_INFO=-g1 -DCMAKE_UNITY_BUILD=ON
CI_MAIN_CMAKE ?= -DSIDECORE_QUICK_BUILD=ON
endif

# A new build folder is configured for Ninja, which keeps both cores of a 2-core machine busier than make's recursive
# builds do (a fresh ASan build 349 s against 419 s, docs/results.md); a folder configured earlier keeps its
# generator (CMake refuses to change it).
generator = $(if $(wildcard $(1)/CMakeCache.txt),,-G Ninja)

# Debian packages the build, the tests and the benchmarks need.
DEB_PACKAGES = cmake make g++ gfortran pkg-config \
  libfabric-dev libfabric-bin libhwloc-dev hwloc mpich libmpich-dev \
  googletest libgtest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev \
  chromium clang libclang-rt-14-dev ninja-build

.PHONY: all deps configure build demo overlap test asan tsan fuzz fuzz-build clean clean-shm

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  echo "Installing missing Debian packages:$$missing"; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

configure: deps
	cmake $(call generator,$(BUILD)) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  $(CI_CMAKE) $(CI_MAIN_CMAKE) $(CMAKE_EXTRA)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The demo's case: apps/md (MiniMD-like: blocking halo swaps, an allreduce per step), small enough for a minute.
# One rank first: it has every core of the machine, so the comparison is judged on any machine (with one rank the
# app sends nothing: it checks the computation term and core mode's cost). Then two ranks, each bound to half the
# cores when there are at least 4; on fewer, the study runs them and marks the comparison oversubscribed, not judged.
DEMO_APP  ?= $(BUILD)/bin/md --size 8 --steps 40
DEMO_REPS ?= 3
DEMO_OUT  ?= $(BUILD)/demo
demo: build clean-shm
	@rm -rf $(DEMO_OUT) && mkdir -p $(DEMO_OUT)
	$(BUILD)/bin/sidecore study -n 1 --reps $(DEMO_REPS) --out $(DEMO_OUT)/1rank -- $(DEMO_APP)
	@half=$$(( $$(nproc) / 2 )); \
	if [ $$half -ge 2 ]; then launcher="mpiexec -bind-to core:$$half"; else launcher=mpiexec; fi; \
	echo "$(BUILD)/bin/sidecore study -n 2 --reps $(DEMO_REPS) --alpha 1 --alpha-option=--alpha \
	--mpiexec \"$$launcher\" --out $(DEMO_OUT)/2ranks -- $(DEMO_APP)"; \
	$(BUILD)/bin/sidecore study -n 2 --reps $(DEMO_REPS) --alpha 1 --alpha-option=--alpha --mpiexec "$$launcher" \
	  --out $(DEMO_OUT)/2ranks -- $(DEMO_APP)

overlap: build
	bench/run-overlap.sh --quick $(BUILD)

test: build clean-shm $(if $(filter 1,$(FUZZ)),fuzz-build)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --label-exclude 'known-bug|coll-full' \
	  --repeat until-pass:2 $(CTEST_ARGS)
ifeq ($(FUZZ),1)
	ctest --test-dir $(FUZZ_BUILD) --output-on-failure -j $(JOBS)
endif
ifeq ($(ASAN),1)
	$(MAKE) asan ASAN=0
endif

# clang's -fsanitize=fuzzer takes libFuzzer from libclang-rt-14-dev (compiler-rt), with the ASan and UBSan runtimes.
fuzz-build: deps
	cmake $(call generator,$(FUZZ_BUILD)) -S fuzz -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ $(CI_CMAKE)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Sanitizer builds (separate build folders; FUZZ=0: the fuzz harnesses already run under ASan+UBSan in `make test`).
# Leak detection is off: MPICH and UCX leak at exit.
# UCX_MEM_EVENTS=no: MPICH's UCX memory hooks (libucm) crashed inside TSan's interceptors at thread exit.
# ignore_noninstrumented_modules: TSan ignores what uninstrumented libraries (MPICH, UCX, libfabric, libgomp) do inside
# its interceptors. libgomp starts and joins a region's pooled threads through futexes, which TSan cannot see: the
# tests' OpenMP regions therefore run through sctest::omp_parallel (tests/runtime/omp_parallel.hpp), which redoes the
# fork and join with atomics TSan models; before it, every run drew some 450 false reports there, a quarter of them
# with sidecore's request code on the stack. No suppressions file: nothing is suppressed.
# The PMPI tests preload the ASan runtime ahead of libsidecore-pmpi.so in the Asan build (tests/instrument).
asan:
	ASAN_OPTIONS=detect_leaks=0 UCX_MEM_EVENTS=no $(MAKE) test BUILD=$(ASAN_BUILD) BUILD_TYPE=Asan FUZZ=0 ASAN=0 \
	  CMAKE_EXTRA=-DSIDECORE_BUILD_BENCH=OFF CTEST_ARGS="$(ASAN_CTEST_ARGS)"
tsan:
	TSAN_OPTIONS=ignore_noninstrumented_modules=1 UCX_MEM_EVENTS=no $(MAKE) test \
	  BUILD=build-tsan BUILD_TYPE=Tsan FUZZ=0 ASAN=0

clean:
	rm -rf $(BUILD)

# Removes the shm regions (/dev/shm/sidecore-<pid>-<random>) that processes killed before finalize left behind:
# only this user's, and only those whose process is gone. Each holds up to 16 MiB of /dev/shm.
clean-shm:
	@for f in /dev/shm/sidecore-*; do \
	  [ -O "$$f" ] || continue; \
	  pid=$${f#/dev/shm/sidecore-}; pid=$${pid%%-*}; \
	  [ -d "/proc/$$pid" ] || rm -f "$$f"; \
	done
