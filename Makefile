# berth's front door. The two quick-start commands:
#   make demo   install what is missing, build, simulate a generated Philly-like workload
#   make test   install what is missing, build, run every test (plain and sanitized builds)
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= 2
MAKEFLAGS  += --no-print-directory
CMAKE_ARGS ?=

.PHONY: all deps build asan demo test test-plain test-asan test-deps fuzz bench lint format clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DBERTH_SANITIZE=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)

demo: build
	@$(BUILD)/berth gen --profile philly --jobs 20000 --rate 60 --seed 1 --out $(BUILD)/demo-philly.csv
	@echo "generated $(BUILD)/demo-philly.csv: 20000 Philly-like jobs at 60 jobs/hour (twice Philly's mean rate)"
	@$(BUILD)/berth sim --cluster philly --trace $(BUILD)/demo-philly.csv --policy las

# The tests also need PyTorch (python3-torch): tests/cli_jobside.sh runs examples/pytorch.
test-deps:
	@BERTH_EXTRA_PACKAGES=python3-torch sh scripts/install-deps.sh

test-plain: build test-deps
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-asan: asan test-deps
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j$(JOBS)

test: test-plain test-asan

# libFuzzer on every trace loader for FUZZ_SECONDS each (clang; installs it when missing).
FUZZ_SECONDS ?= 15
fuzz: build
	@BERTH_EXTRA_PACKAGES="clang libclang-rt-14-dev" sh scripts/install-deps.sh
	@CC=clang cmake -S . -B build-fuzz -DBERTH_FUZZ=ON -DBERTH_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CMAKE_ARGS) >/dev/null
	@cmake --build build-fuzz -j$(JOBS)
	@cd build-fuzz && ctest -R fuzz --output-on-failure

bench: build
	@bash bench/run.sh $(BUILD)/berth

# Style checked by a machine: clang-format and a short list of banned functions.
lint:
	@BERTH_EXTRA_PACKAGES=clang-format sh scripts/install-deps.sh
	@clang-format --dry-run --Werror src/*/*.c src/*/*.h include/berth/*.h tests/*.c tests/*.h
	@! grep -nE '\b(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atof)\s*\(' src/*/*.c src/*/*.h \
		|| (echo "banned function above (use snprintf, strtol and friends)"; exit 1)

format:
	@clang-format -i src/*/*.c src/*/*.h include/berth/*.h tests/*.c tests/*.h

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
