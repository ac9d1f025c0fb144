# berth's developer targets. A newcomer on a bare machine starts with quickstart.sh (README's
# two commands), which installs make and a compiler and then runs these:
#   make demo         install what is missing, build, simulate a generated Philly-like workload
#   make test         install what is missing, build, run every test (plain and sanitized builds)
#   make test-slurm   install Slurm (22.05 on Debian 12, 24.11 on 13), build with libslurm,
#                     run the Slurm suite (SLURM_ASAN=no: the plain build only)
# Developer builds treat warnings as errors (BERTH_WERROR); a plain `cmake` build does not.
BUILD        ?= build
ASAN_BUILD   ?= build-asan
JOBS         ?= 2
PREFIX       ?= /usr/local
MAKEFLAGS    += --no-print-directory
CMAKE_ARGS   ?=
DEV_ARGS      = -DBERTH_WERROR=ON $(CMAKE_ARGS)
TEST_PACKAGES = python3-torch man-db chromium prometheus fonts-dejavu-core
TEST_REQUIRE  = torch,chromium,prometheus
SLURM_PACKAGES = munge slurmctld slurmd slurm-client libslurm-dev python3-torch
SLURM_ASAN    ?= yes

.PHONY: all deps build asan demo test test-plain test-asan test-deps test-slurm test-isolation fuzz bench \
	lint layers format compilers install uninstall clean bench-smoke guard guard-ci

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(DEV_ARGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DBERTH_SANITIZE=ON $(DEV_ARGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)

demo: build
	@$(BUILD)/berth gen --profile philly --jobs 20000 --rate 60 --seed 1 --out $(BUILD)/demo-philly.csv
	@echo "generated $(BUILD)/demo-philly.csv: 20000 Philly-like jobs at 60 jobs/hour (twice Philly's mean rate)"
	@$(BUILD)/berth sim --cluster philly --trace $(BUILD)/demo-philly.csv --policy las

# The tests also need PyTorch (python3-torch: tests/cli_jobside.sh and berthd_pytorch.sh run
# examples/pytorch), man (the install test reads the installed pages), Chromium (headless:
# tests/cli_report.sh and berthd_ui.sh render the report and the dashboard and keep
# screenshots), Prometheus (berthd_metrics.sh scrapes berthd and runs promtool) and the DejaVu
# fonts the charts name. They are installed here, so under make test their absence is a
# failure (BERTH_REQUIRE), never a skip.
test-deps:
	@BERTH_EXTRA_PACKAGES="$(TEST_PACKAGES)" sh scripts/install-deps.sh

# ctest, then every SKIP line the tests printed (CTest shows a skipped test's output nowhere)
ctest = ctest --output-on-failure $(1); rc=$$?; \
	grep -h '^SKIP' Testing/Temporary/LastTest.log 2>/dev/null | sort -u; exit $$rc

test-plain: build test-deps
	@cd $(BUILD) && BERTH_REQUIRE=$(TEST_REQUIRE) $(call ctest,-j$(JOBS))

test-asan: asan test-deps
	@cd $(ASAN_BUILD) && BERTH_REQUIRE=$(TEST_REQUIRE) $(call ctest,-j$(JOBS))

test: test-plain test-asan

# The Slurm suite: a mini cluster of slurmctld and four slurmd on this machine (root only),
# the libslurm wrapper and berthd's slurm executor, in the plain and sanitized builds.
test-slurm:
	@BERTH_EXTRA_PACKAGES="$(SLURM_PACKAGES)" sh scripts/install-deps.sh
	@$(MAKE) build $(if $(filter yes,$(SLURM_ASAN)),asan)
	@cd $(BUILD) && BERTH_REQUIRE=slurm,torch $(call ctest,-L slurm)
	@if [ "$(SLURM_ASAN)" = yes ]; then cd $(ASAN_BUILD) && BERTH_REQUIRE=slurm,torch $(call ctest,-L slurm); fi

# What needs root, writable cgroups and a tmpfs mount to run whole: jobs as other accounts,
# cgroup isolation and limits, the disk-full checks (plain and sanitized builds). A pristine
# chroot has /sys read-only, so CI runs these on its own machine with BERTH_REQUIRE set.
test-isolation: build asan
	@cd $(BUILD) && BERTH_REQUIRE=cgroup,root,mount $(call ctest,-L isolation)
	@cd $(ASAN_BUILD) && BERTH_REQUIRE=cgroup,root,mount $(call ctest,-L isolation)

# libFuzzer on every trace loader for FUZZ_SECONDS each (clang; installs it when missing).
FUZZ_SECONDS ?= 15
fuzz: build
	@BERTH_EXTRA_PACKAGES="clang libclang-rt-14-dev" sh scripts/install-deps.sh
	@CC=clang cmake -S . -B build-fuzz -DBERTH_FUZZ=ON -DBERTH_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CMAKE_ARGS) >/dev/null
	@cmake --build build-fuzz -j$(JOBS)
	@cd build-fuzz && ctest -R fuzz --output-on-failure

# The compilers and settings users build with, warnings as errors: gcc at -O3 (Release) and
# clang (RelWithDebInfo). Their new warnings are ours to find, not our users'.
compilers: deps
	@BERTH_EXTRA_PACKAGES=clang sh scripts/install-deps.sh
	@cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release $(DEV_ARGS) >/dev/null
	@cmake --build build-release -j$(JOBS)
	@CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo $(DEV_ARGS) >/dev/null
	@cmake --build build-clang -j$(JOBS)
	@echo "gcc Release and clang RelWithDebInfo built without warnings"

# The benchmarks; their output is also written to bench/results.md (kept beside the code
# that made it: commit it when the numbers change). bench-smoke: every case once at a small
# size (CI runs it so that the benchmarks never rot; its times mean nothing). BENCH_QUICK=1
# make bench: every case once, 100,000 generated jobs where the full run has a million, the
# scale curve to a million (SCALE_SIZES to change it: bench/scale.sh).
bench: build
	@{ echo "# berth's benchmarks"; echo; echo "\`$(if $(filter 1,$(BENCH_QUICK)),BENCH_QUICK=1 )make bench\` on $$(nproc) cores ($$(uname -m), $$(free -g | awk '/^Mem/ {print $$2}') GiB, shared), $$(date -u +%Y-%m-%d), berth $$(git describe --always --dirty 2>/dev/null), load average $$(cut -d' ' -f1 /proc/loadavg) at the start."; \
	  echo; echo '```'; bash bench/run.sh $(BUILD)/berth; echo; bash bench/scale.sh $(BUILD)/berth; echo; bash bench/overload.sh $(BUILD)/berth; echo; bash bench/berthd.sh $(BUILD); echo '```'; } | tee bench/results.md

# the performance guard (bench/guard.sh): BASE against the working tree, every policy on
# Philly and on 100k gavel jobs (guard), or the reduced set CI runs against bench/baseline
BASE ?= $(shell cat bench/baseline)
guard: deps
	@bash bench/guard.sh --set full $(BASE)

guard-ci: deps
	@bash bench/guard.sh --set ci $(BASE)

bench-smoke: build
	@BENCH_SMOKE=1 bash bench/run.sh $(BUILD)/berth
	@BENCH_SMOKE=1 bash bench/scale.sh $(BUILD)/berth
	@BENCH_SMOKE=1 bash bench/overload.sh $(BUILD)/berth
	@BENCH_SMOKE=1 bash bench/berthd.sh $(BUILD)

# Installs berth, berthd, libberth.a with its headers and pkg-config file, the man pages, the
# bash completion and the systemd unit under PREFIX (DESTDIR=... for staging); the list of
# installed files goes to $(BUILD)/install_manifest.txt, which make uninstall reads.
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

uninstall:
	@test -f $(BUILD)/install_manifest.txt || { echo "nothing to uninstall: $(BUILD)/install_manifest.txt is missing"; exit 1; }
	@while IFS= read -r f || [ -n "$$f" ]; do rm -f "$${DESTDIR:-}$$f" && echo "removed $${DESTDIR:-}$$f"; done <$(BUILD)/install_manifest.txt
	@rm -f $(BUILD)/install_manifest.txt

# every C file of the library, the programs and the tests (layers have rooms: subfolders)
SRC_FILES = $(shell find src -name '*.[ch]' | sort)
C_FILES   = $(SRC_FILES) $(wildcard include/berth/*.h) $(shell find tests bench -name '*.[ch]' | sort)

# Style checked by a machine: clang-format and a short list of banned functions.
lint:
	@BERTH_EXTRA_PACKAGES=clang-format sh scripts/install-deps.sh
	@clang-format --dry-run --Werror $(C_FILES)
	@! grep -nE '\b(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atof)\s*\(' $(SRC_FILES) \
		|| (echo "banned function above (use snprintf, strtol and friends)"; exit 1)

# The layer rule (docs/design.md, "Layers") on the built objects' symbols and the includes.
layers: build
	@python3 scripts/check-layers.py $(BUILD)

format:
	@clang-format -i $(C_FILES)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz build-release build-clang
