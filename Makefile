# Installs the `stowage` command with its man page and shell completions.
#
#   make install                      # under /usr/local (needs root)
#   make install PREFIX=$HOME/.local  # in your home folder
#   make uninstall PREFIX=...         # removes exactly the files install wrote
#
# DESTDIR is honoured for packaging (make install DESTDIR=/tmp/pkg).

PREFIX ?= /usr/local
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
SWIFT ?= swift

# The man page generator (swift-argument-parser's plugin) writes here.
MANUAL = .build/plugins/GenerateManual/outputs/stowage/stowage.1

.PHONY: build manual install uninstall

build:
	$(SWIFT) build -c release --product stowage

manual: build
	$(SWIFT) package generate-manual --configuration release

install: build manual
	install -d "$(BINDIR)" "$(MANDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 755 "$$($(SWIFT) build -c release --show-bin-path)/stowage" "$(BINDIR)/stowage"
	install -m 644 "$(MANUAL)" "$(MANDIR)/stowage.1"
	"$(BINDIR)/stowage" --generate-completion-script bash > "$(BASHDIR)/stowage"
	"$(BINDIR)/stowage" --generate-completion-script zsh > "$(ZSHDIR)/_stowage"
	"$(BINDIR)/stowage" --generate-completion-script fish > "$(FISHDIR)/stowage.fish"

uninstall:
	rm -f "$(BINDIR)/stowage" "$(MANDIR)/stowage.1" "$(BASHDIR)/stowage" "$(ZSHDIR)/_stowage" "$(FISHDIR)/stowage.fish"
