# olmcat build and test entry points. Everything the tests need is installed
# by these targets (Go modules, Debian's chromium for the browser test,
# Debian's etcd-server and a kube-apiserver built from the Go module proxy
# for the cluster tests); nothing has to be set up by hand.

GO        ?= go
BIN       ?= bin/olmcat
PKGS      ?= ./...
FUZZTIME  ?= 3s
# Packages with concurrent servers/clients: run under the race detector too.
RACE_PKGS ?= ./registry/...

.PHONY: all build build-images image health-probe-bin opm-bin browser xmllint runc cluster-bins test test-all test-unit test-race fuzz lint generate bench clean

all: build

# A static binary: the unpack Job runs it inside bundle images (no libc).
# The version and commit are stamped with -X so that `olmcat version` knows
# them even where the toolchain records no VCS information
# (GOFLAGS=-buildvcs=false, a source tarball).
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
# -s -w: no symbol table or DWARF (a third of the size; panics keep their
# stack traces).
LDFLAGS   = -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/olmcat

# Static olmcat binaries per platform, the entrypoints of the images
# olmcat build makes (olmcat build --binary linux/arm64=bin/olmcat-linux-arm64).
# The slim build has only what an image runs: serve (declarative configs;
# no sqlite library) and the unpack Job's bundle copy and bundle extract
# (no Kubernetes client library). scripts/binary-sizes.sh prints the sizes.
IMAGE_ARCHS ?= amd64 arm64

build-images:
	@set -e; for a in $(IMAGE_ARCHS); do \
		echo "build bin/olmcat-linux-$$a"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$a $(GO) build -trimpath -tags slim -ldflags "$(LDFLAGS)" -o bin/olmcat-linux-$$a ./cmd/olmcat; \
	done

# olmcat's own image, a drop-in opm image (olmcat build-tool-image): the
# slim binaries of build-images under the names olmcat, opm and
# grpc_health_probe, for every IMAGE_ARCHS, in one image index. Written as
# an OCI layout at IMAGE_LAYOUT, or pushed to IMAGE=ref. Reproducible:
# file times are the commit's (SOURCE_DATE_EPOCH), the binaries are built
# with -trimpath, so the same commit gives the same digest.
IMAGE           ?=
IMAGE_LAYOUT    ?= bin/olmcat-image
IMAGE_PLATFORMS  = $(shell echo $(addprefix linux/,$(IMAGE_ARCHS)) | tr ' ' ,)
IMAGE_BINARIES   = $(foreach a,$(IMAGE_ARCHS),--binary linux/$(a)=bin/olmcat-linux-$(a))
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)

image: build build-images
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(BIN) build-tool-image \
		$(if $(IMAGE),$(IMAGE),olmcat:$(or $(VERSION),dev) --push=false --oci-layout $(IMAGE_LAYOUT) --force) \
		--platform $(IMAGE_PLATFORMS) $(IMAGE_BINARIES)

test: lint browser xmllint runc cluster-bins health-probe-bin opm-bin build-images test-all test-race fuzz

# Every test. The browser test (cmd/olmcat/internal/report) drives Debian's
# chromium, the cluster tests (internal/testutil/kubetest users: unpack, the
# bundle commands) a real kube-apiserver and etcd, and the pod runs
# (cmd/olmcat pods_test.go, the internal/testutil/podrun harness) Debian's
# runc as root; here a missing browser, binary or runc fails those tests
# instead of skipping them. The image build test
# uses the binaries of build-images.
test-all:
	OLMCAT_REQUIRE_BROWSER=1 OLMCAT_REQUIRE_XMLLINT=1 OLMCAT_REQUIRE_RUNC=1 $(CLUSTER_ENV) TEST_ASSETS_REQUIRED=1 OLMCAT_TEST_IMAGE_BINARIES=$(CURDIR)/bin OLMCAT_TEST_GRPC_HEALTH_PROBE=$(HEALTH_PROBE) OLMCAT_TEST_OPM=$(OPM) $(GO) test -count=1 -timeout 45m $(PKGS)

# The fast tests: -short skips the cluster tests and the image build test.
test-unit:
	OLMCAT_REQUIRE_BROWSER=1 $(GO) test -short -count=1 $(PKGS)

# Cluster test binaries: etcd from Debian's etcd-server, kube-apiserver
# built once by scripts/install-kube-apiserver.sh (~10 minutes on 2 cores)
# and cached outside the repository.
ETCD           ?= /usr/bin/etcd
KUBE_VERSION   ?= v1.34.4
KUBE_APISERVER ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/olmcat-test/kube-apiserver-$(KUBE_VERSION)
CLUSTER_ENV     = TEST_ASSET_ETCD=$(ETCD) TEST_ASSET_KUBE_APISERVER=$(KUBE_APISERVER)

cluster-bins:
	@if [ ! -x $(ETCD) ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "$(ETCD) missing: install Debian's etcd-server package (or run make test as root)" >&2; exit 1; fi; \
		$(APT_INSTALL) etcd-server; \
	fi
	@if [ ! -x $(KUBE_APISERVER) ]; then KUBE_VERSION=$(KUBE_VERSION) GO=$(GO) scripts/install-kube-apiserver.sh >/dev/null; fi

# The real grpc-health-probe, which the probe olmcat is as grpc_health_probe
# is compared with (cmd/olmcat TestHealthProbeMatchesGRPCHealthProbe):
# built once from the Go module proxy and cached outside the repository.
HEALTH_PROBE_VERSION ?= v0.4.62
HEALTH_PROBE_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/olmcat-test/grpc-health-probe-$(HEALTH_PROBE_VERSION)
HEALTH_PROBE          = $(HEALTH_PROBE_DIR)/grpc-health-probe

health-probe-bin:
	@if [ ! -x $(HEALTH_PROBE) ]; then \
		mkdir -p $(HEALTH_PROBE_DIR) && cd / && GOBIN=$(HEALTH_PROBE_DIR) CGO_ENABLED=0 $(GO) install github.com/grpc-ecosystem/grpc-health-probe@$(HEALTH_PROBE_VERSION); \
	fi

# The real opm v1.73.0, which runs beside olmcat in the serve cache tests
# (opm serve --cache-dir on olmcat's cache, olmcat serve on opm's): built
# once by scripts/install-opm.sh from the Go module proxy (cgo, ~10
# minutes on 2 cores) and cached outside the repository.
OPM_VERSION ?= v1.73.0
OPM         ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/opm-$(OPM_VERSION)/opm

opm-bin:
	@if [ ! -x $(OPM) ]; then OPM_VERSION=$(OPM_VERSION) GO=$(GO) scripts/install-opm.sh $(dir $(OPM)) >/dev/null; fi

# APT_INSTALL installs the Debian packages the targets need, waiting up to
# 10 minutes for another apt or dpkg run's locks (scripts/apt-install.sh).
APT_INSTALL = scripts/apt-install.sh

CHROMIUM ?= /usr/bin/chromium

browser:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "$(CHROMIUM) missing: install Debian's chromium package (or run make test as root)" >&2; exit 1; fi; \
		$(APT_INSTALL) chromium; \
	fi

XMLLINT ?= /usr/bin/xmllint

# The JUnit output's schema test (cmd/olmcat/internal/report) validates
# with Debian's xmllint.
xmllint:
	@if [ ! -x $(XMLLINT) ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "$(XMLLINT) missing: install Debian's libxml2-utils package (or run make test as root)" >&2; exit 1; fi; \
		$(APT_INSTALL) libxml2-utils; \
	fi

RUNC ?= /usr/sbin/runc

# The pod harness (internal/testutil/podrun) runs the images olmcat builds,
# as OLM's pods, with Debian's runc.
runc:
	@if [ ! -x $(RUNC) ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "$(RUNC) missing: install Debian's runc package (or run make test as root)" >&2; exit 1; fi; \
		$(APT_INSTALL) runc; \
	fi

test-race:
	@if ls $(subst ...,,$(RACE_PKGS)) >/dev/null 2>&1; then $(GO) test -race -count=1 $(RACE_PKGS); fi

# Each fuzzer runs for FUZZTIME (go test allows one -fuzz target per run).
FUZZ_TARGETS ?= FuzzDecodeStream:./declcfg FuzzDecodePlainBundle:./declcfg FuzzParseBundleObject:./declcfg \
	FuzzAppendIndented:./declcfg FuzzParseGVKValue:./declcfg FuzzPackageLookups:./declcfg FuzzSplitObjects:./legacy \
	FuzzValid:./internal/jsonscan FuzzSkipValue:./internal/jsonscan FuzzObjectFields:./internal/jsonscan \
	FuzzArrayElems:./internal/jsonscan FuzzString:./internal/jsonscan FuzzObjects:./internal/jsonscan FuzzFramer:./internal/jsonscan FuzzValidFields:./internal/jsonscan \
	FuzzKind:./internal/manifest FuzzValidKind:./internal/manifest FuzzReadHead:./internal/manifest

fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(FUZZ_TARGETS)

# The linters run at pinned versions through go run, which fetches them
# from the Go module proxy (or the module cache) apart from the module:
# their dependencies stay out of go.mod. staticcheck honours
# //lint:ignore comments that give a reason; deadcode (tests count as
# callers) runs through scripts/deadcode.sh, which fails on any finding.
# Both also see the code only tagged builds compile: LINT_TAGS (the crash
# test binary, the opm recording test) with the tests, the slim image
# binary without them (the CLI's tests are the full build's; unused code
# of the slim build is deadcode's to find).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE    ?= golang.org/x/tools/cmd/deadcode@v0.52.0
LINT_TAGS   ?= crashtest,opmrecord

lint:
	$(GO) vet $(PKGS)
	$(GO) vet -tags $(LINT_TAGS) $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v '\.pb\.go$$'); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	printf 'default:\ntagged: -tags=$(LINT_TAGS)\n' | $(GO) run $(STATICCHECK) -matrix $(PKGS)
	$(GO) run $(STATICCHECK) -tags slim -tests=false -checks inherit,-U1000 $(PKGS)
	GO=$(GO) DEADCODE=$(DEADCODE) scripts/deadcode.sh "" $(LINT_TAGS) slim:notests

generate:
	$(GO) generate ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin
