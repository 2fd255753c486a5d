# Cairn: `make run` builds and starts the server on its embedded defaults; `make test` runs
# every test. Both install what they need on a fresh Debian 12 machine.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
HOST ?= 127.0.0.1
PORT ?= 8090
DATA_DIR ?= ./data
CMAKE_FLAGS ?=
# ccache: hash paths relative to the checkout, so a fresh clone of the same sources (as CI makes)
# reuses the cache of an earlier one instead of compiling everything again.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps deps-test configure build run test unit e2e clean bench bench-smoke

all: build

deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) --target cairn

run: build
	$(BUILD_DIR)/cairn serve --host $(HOST) --port $(PORT) --data-dir $(DATA_DIR)

# Unit tests (every store backend; PostgreSQL and MariaDB started once by the runner), the
# end-to-end suites (Gravitino client, PyIceberg, the REST compatibility kit, security) per store,
# and the benchmarks' smoke modes so they never rot.
# The unit tests are required here, so configure again with them on (a build directory first
# configured by `make run` on a machine without gmock has them off).
test: deps-test configure
	cmake -S . -B $(BUILD_DIR) -DCAIRN_BUILD_TESTS=ON
	cmake --build $(BUILD_DIR)
	CAIRN_BIN=$(BUILD_DIR)/cairn tests/e2e/run.sh -- ctest --test-dir $(BUILD_DIR) --output-on-failure
	python3 bench/run.py --smoke --cairn $(BUILD_DIR)/cairn
	python3 bench/replicas.py --smoke --cairn $(BUILD_DIR)/cairn --out $(BUILD_DIR)/replicas-smoke.json
	tests/fuzz/run.sh 15

unit: deps-test configure
	cmake -S . -B $(BUILD_DIR) -DCAIRN_BUILD_TESTS=ON
	cmake --build $(BUILD_DIR)
	cd $(BUILD_DIR) && ctest --output-on-failure

# Benchmarks beside the Java reference Iceberg REST server and nginx (bench/run.py, docs/performance.md).
# `bench` is the full run (~15 min, not part of `test`; then bench/replicas.py, PostgreSQL beside
# SQLite and two replicas' staleness, ~1 min); `bench-smoke` is a ~30 s version that fails
# only on harness errors (or a lost acknowledged commit), never on performance.
bench: deps-test configure
	cmake --build $(BUILD_DIR) --target cairn
	python3 bench/run.py --cairn $(BUILD_DIR)/cairn
	python3 bench/replicas.py --cairn $(BUILD_DIR)/cairn

bench-smoke: deps-test configure
	cmake --build $(BUILD_DIR) --target cairn
	python3 bench/run.py --smoke --cairn $(BUILD_DIR)/cairn

clean:
	rm -rf $(BUILD_DIR)
