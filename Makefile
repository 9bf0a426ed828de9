# olmcat build and test entry points. Everything the tests need is installed
# by these targets (Go modules, and Debian's chromium for the browser test);
# nothing has to be set up by hand.

GO        ?= go
BIN       ?= bin/olmcat
PKGS      ?= ./...
FUZZTIME  ?= 3s
# Packages with concurrent servers/clients: run under the race detector too.
RACE_PKGS ?= ./registry/...

.PHONY: all build browser test test-unit test-race fuzz lint generate bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/olmcat

test: lint browser test-unit test-race fuzz

# The browser test (internal/htmlreport) drives Debian's chromium; under
# make test a missing browser fails the test instead of skipping it.
test-unit:
	OLMCAT_REQUIRE_BROWSER=1 $(GO) test -count=1 $(PKGS)

CHROMIUM ?= /usr/bin/chromium

browser:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "$(CHROMIUM) missing: install Debian's chromium package (or run make test as root)" >&2; exit 1; fi; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	fi

test-race:
	@if ls $(subst ...,,$(RACE_PKGS)) >/dev/null 2>&1; then $(GO) test -race -count=1 $(RACE_PKGS); fi

# Each fuzzer runs for FUZZTIME (go test allows one -fuzz target per run).
FUZZ_TARGETS ?= FuzzDecodeStream:./declcfg FuzzDecodePlainBundle:./declcfg \
	FuzzAppendIndented:./declcfg FuzzSplitObjects:./legacy \
	FuzzValid:./internal/jsonscan FuzzSkipValue:./internal/jsonscan FuzzObjectFields:./internal/jsonscan \
	FuzzArrayElems:./internal/jsonscan FuzzString:./internal/jsonscan FuzzObjects:./internal/jsonscan \
	FuzzKind:./internal/manifest FuzzReadHead:./internal/manifest

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t%%:*} ($${t#*:}, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$${t%%:*}\$$" -fuzztime $(FUZZTIME) "$${t#*:}"; \
	done

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v '\.pb\.go$$'); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

generate:
	$(GO) generate ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin
