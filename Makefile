# Thin wrapper: the real build is CMake. `make run` and `make test` are the README's contract.
BUILD ?= build
JOBS ?= $(shell nproc)
WERROR ?= $(or $(STRIDER_WERROR),OFF)

.PHONY: setup configure build run test clean

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

clean:
	rm -rf $(BUILD)
