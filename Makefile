# The README's first two commands on a fresh Debian 12 machine with the Swift
# toolchain: `make demo` and `make test`. Each installs the missing system
# libraries first (.ci/install-deps).

SHELL := /bin/bash
DATASET := ../shared/datasets/swift-evolution.commits.jsonl.gz
DEMO_DB ?= /tmp/commits-mirror-demo.sqlite
PREFIX ?= /usr/local
RELEASE := .build/release

.PHONY: deps build demo test install deb system-test

deps:
	@.ci/install-deps

# The Swift runtime and Foundation linked into the programs: no shared runtime
# to load and relocate at every start (issue #30: a third of a query's time),
# and nothing from the toolchain needed where they run.
build: deps
	swift build -c release --static-swift-stdlib

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

# Under a watchdog (Tests/run-bounded.sh): a hung test fails the run in minutes,
# naming the tests that never finished and where each thread was blocked.
test: deps
	monitoring/check.sh
	.ci/check-layers
	Tests/run-bounded.sh

# Binaries, units (ExecStart pointing at $(PREFIX)/bin), man pages, completions,
# the Prometheus rules and Grafana dashboard (docs/MONITORING.md); the example
# configuration only if none is there yet. Then: docs/SERVICE.md, "Install".
# DESTDIR stages it elsewhere.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)/etc/systemd/system $(DESTDIR)/etc/commits-mirror \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(RELEASE)/commitsctl $(RELEASE)/commitsd $(RELEASE)/github-sim $(DESTDIR)$(PREFIX)/bin/
	for unit in systemd/*.service systemd/*.timer; do \
	    sed 's#/usr/local/bin/#$(PREFIX)/bin/#g' $$unit > $(DESTDIR)/etc/systemd/system/$$(basename $$unit); done
	install -d $(DESTDIR)$(PREFIX)/share/commits-mirror/monitoring
	install -m 644 monitoring/commits-mirror.rules.yml monitoring/commits-mirror.rules.test.yml \
	    monitoring/prometheus.example.yml monitoring/grafana-dashboard.json $(DESTDIR)$(PREFIX)/share/commits-mirror/monitoring/
	[[ -e $(DESTDIR)/etc/commits-mirror/config.yaml ]] || \
	    install -m 644 config/commits-mirror.example.yaml $(DESTDIR)/etc/commits-mirror/config.yaml
	for tool in commitsctl commitsd; do \
	    .ci/packaging/man-page.sh $(RELEASE)/$$tool > $(DESTDIR)$(PREFIX)/share/man/man1/$$tool.1; \
	    $(RELEASE)/$$tool --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$tool; \
	    $(RELEASE)/$$tool --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$tool; \
	    $(RELEASE)/$$tool --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$tool.fish; done

# dist/commits-mirror_<version>_<arch>.deb (.ci/packaging/build-deb.sh).
deb: deps
	.ci/packaging/build-deb.sh

# The package under a real systemd in a debootstrapped Debian 12 (Tests/System/run.sh).
system-test: deb
	Tests/System/run.sh
