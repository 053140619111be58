# Thin wrapper: the real build is CMake. `make run` and `make test` are the README's contract.
BUILD ?= build
JOBS ?= $(shell nproc)
WERROR ?= $(or $(STRIDER_WERROR),OFF)

.PHONY: setup configure build run test clean test-asan

setup:
	@bash scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DSTRIDER_WERROR=$(WERROR) > /dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/strider run configs/runs/default.yaml

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer; any report is fatal.
# No -Werror here: the plain build enforces it, and GCC 12's -Wmaybe-uninitialized gives false
# positives in <regex> / <functional> under -fsanitize=address.
# -g1: line tables only (a report's stack still names file:line); full -g made each file ~15 %
# slower to compile (tb/run_command.cpp: 20.8 s against 18.0 s CPU) for variables nobody reads.
ASAN_BUILD ?= build-asan
test-asan: setup
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIDER_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DSTRIDER_WERROR=OFF > /dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && \
	  ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1 \
	  UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
