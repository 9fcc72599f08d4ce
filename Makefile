# Installs the `stowage` command with its man page and shell completions.
#
#   make install                      # under /usr/local (needs root)
#   make install PREFIX=$HOME/.local  # in your home folder
#   make uninstall PREFIX=...         # removes the files install wrote, and its folders left empty
#   make install STATIC=              # the command against Swift's shared libraries (slower to start)
#
# DESTDIR is honoured for packaging (make install DESTDIR=/tmp/pkg).

PREFIX ?= /usr/local
SHAREDIR = $(DESTDIR)$(PREFIX)/share
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(SHAREDIR)/man/man1
BASHDIR = $(SHAREDIR)/bash-completion/completions
ZSHDIR = $(SHAREDIR)/zsh/site-functions
FISHDIR = $(SHAREDIR)/fish/vendor_completions.d
SWIFT ?= swift
# debug for a quicker build (CI checks the man page of a debug build).
CONFIGURATION ?= release
# The installed command carries Swift's standard library and Foundation inside it: it starts in
# half the time of one that loads them (and ICU's) as shared libraries, and needs no Swift
# installed where it runs. On Linux the C++ standard library is linked in too, where its static
# archive is installed (Scripts/static-cxx-flags.sh says why and how). STATIC= builds against the
# shared libraries instead.
STATIC ?= --static-swift-stdlib $(shell Scripts/static-cxx-flags.sh "$(STATIC_CXX_DIR)")
# Where Scripts/static-cxx-flags.sh puts its link to libstdc++.a.
STATIC_CXX_DIR ?= .build/static-cxx

# The man page generator (swift-argument-parser's plugin) writes here; install takes the page
# from MANUAL, where tidy-manual makes each blank line of the help's text a paragraph break
# (.Pp): an empty line is not mdoc, and groff warns of each one.
GENERATED_MANUAL = .build/plugins/GenerateManual/outputs/stowage/stowage.1
MANUAL = .build/stowage.1

.PHONY: build manual tidy-manual install uninstall

build:
	$(SWIFT) build -c $(CONFIGURATION) --product stowage

manual: build
	$(SWIFT) package generate-manual --configuration $(CONFIGURATION)
	$(MAKE) --no-print-directory tidy-manual

tidy-manual:
	sed 's/^$$/.Pp/' "$(GENERATED_MANUAL)" > "$(MANUAL)"

# The man page's generator (swift-argument-parser's plugin) builds the command without $(STATIC),
# so build and manual share one build, and the command is built once more with $(STATIC) right
# before it is copied (SwiftPM compiles every module again for it: the flag is in each compile).
install: build manual
	$(SWIFT) build -c $(CONFIGURATION) --product stowage $(STATIC)
	install -d "$(BINDIR)" "$(MANDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 755 "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)/stowage" "$(BINDIR)/stowage"
	install -m 644 "$(MANUAL)" "$(MANDIR)/stowage.1"
	"$(BINDIR)/stowage" --generate-completion-script bash > "$(BASHDIR)/stowage"
	"$(BINDIR)/stowage" --generate-completion-script zsh > "$(ZSHDIR)/_stowage"
	"$(BINDIR)/stowage" --generate-completion-script fish > "$(FISHDIR)/stowage.fish"

# The files, then each folder install makes (install -d makes the parents too), deepest first,
# when it is empty: rmdir, never rm -r, so a folder that holds anything else stays, whoever
# made it. PREFIX itself stays.
uninstall:
	rm -f "$(BINDIR)/stowage" "$(MANDIR)/stowage.1" "$(BASHDIR)/stowage" "$(ZSHDIR)/_stowage" "$(FISHDIR)/stowage.fish"
	@for folder in "$(BINDIR)" "$(MANDIR)" "$(SHAREDIR)/man" "$(BASHDIR)" "$(SHAREDIR)/bash-completion" \
	    "$(ZSHDIR)" "$(SHAREDIR)/zsh" "$(FISHDIR)" "$(SHAREDIR)/fish" "$(SHAREDIR)"; do \
	    if [ -d "$$folder" ] && [ ! -L "$$folder" ] && [ -z "$$(ls -A "$$folder")" ]; then \
	        echo "rmdir $$folder" && rmdir "$$folder" || exit 1; \
	    fi; \
	done
