# The README's first two commands on a fresh Debian 12 machine with the Swift
# toolchain: `make demo` and `make test`. Each installs the missing system
# libraries first (.ci/install-deps).

SHELL := /bin/bash
DATASET := ../shared/datasets/swift-evolution.commits.jsonl.gz
DEMO_DB ?= /tmp/commits-mirror-demo.sqlite
PREFIX ?= /usr/local
RELEASE := .build/release

.PHONY: deps build demo test install

deps:
	@.ci/install-deps

build: deps
	swift build -c release

# The main job offline: github-sim serving swift-evolution (synthetic without
# ../shared), a first sync, a query, and a second sync answered 304.
demo: build
	@rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	@if [[ -f $(DATASET) ]]; then source=(--dataset swiftlang/swift-evolution=$(DATASET)); \
	else echo "make demo: $(DATASET) not found; serving a synthetic history instead"; \
	     source=(--synthetic swiftlang/swift-evolution=8000); fi; \
	$(RELEASE)/github-sim "$${source[@]}" --exec '\
	    commitsctl sync swiftlang/swift-evolution --db $(DEMO_DB) && \
	    commitsctl query --author "Joe Groff" --limit 5 --db $(DEMO_DB) && \
	    commitsctl sync swiftlang/swift-evolution --db $(DEMO_DB)'

test: deps
	swift test

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(RELEASE)/commitsctl $(RELEASE)/commitsd $(RELEASE)/github-sim $(DESTDIR)$(PREFIX)/bin/
