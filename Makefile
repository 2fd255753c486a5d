# Cairn: `make run` builds and starts the server on its embedded defaults; `make test` runs
# every test. Both install what they need on a fresh Debian 12 machine.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
HOST ?= 127.0.0.1
PORT ?= 8090
DATA_DIR ?= ./data
CMAKE_FLAGS ?=

.PHONY: all deps deps-test configure build run test unit e2e clean

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

# Unit tests (both store backends; PostgreSQL started once by the runner) and the end-to-end
# suite with the real Gravitino client, once on SQLite and once on PostgreSQL.
test: deps-test configure
	cmake --build $(BUILD_DIR)
	CAIRN_BIN=$(BUILD_DIR)/cairn tests/e2e/run.sh -- ctest --test-dir $(BUILD_DIR) --output-on-failure

unit: deps-test configure
	cmake --build $(BUILD_DIR)
	cd $(BUILD_DIR) && ctest --output-on-failure

clean:
	rm -rf $(BUILD_DIR)
