# SPDX-License-Identifier: GPL-2.0
# Man pages: `make check` lints every page of the project (step man-lint, one
# TAP line per page: groff -ww -z must print nothing); `make install` puts
# docs/*.<section> under $(PREFIX)/share/man/man<section>.

CHECK_STEPS += man-lint
INSTALL_TARGETS += install-man

# Every roff page in the tree, tracked or not (docs/pmc.4, libpmc/*.3,
# libcpc/*.3cpc, tools/*/*.1 ...): a name ending in .<digit><letters>.
MAN_PAGES = $(shell git -C $(TOP) ls-files -co --exclude-standard | \
	grep -E '^(docs|libpmc|libcpc|tools)/(.*/)?[^/]+\.[1-9][a-z]*$$' | sort)
DOC_MAN_PAGES = $(wildcard $(TOP)/docs/*.[1-9])

# A page that is only ".so other-page" is checked for its target instead.
# -mdoc for pages that start with .Dd, -man for the others.
.PHONY: man-lint
man-lint:
	@mkdir -p $(BUILD)/check
	@n=0; for f in $(MAN_PAGES); do \
		n=$$((n + 1)); \
		so=$$(sed -n '1s/^\.so[ \t]\+//p' $(TOP)/$$f); \
		if [ -n "$$so" ]; then \
			if [ -f "$(TOP)/$$(dirname $$f)/$$so" ] || [ -f "$(TOP)/$$(dirname $$f)/../$$so" ] || \
			   [ -f "$(TOP)/$$(dirname $$f)/$$(basename $$so)" ]; then \
				echo "ok $$n man-lint $$f (.so $$so)"; \
			else \
				echo "not ok $$n man-lint $$f: .so target $$so not found"; \
			fi; \
			continue; \
		fi; \
		if grep -q '^\.Dd' $(TOP)/$$f; then mac=-mdoc; else mac=-man; fi; \
		if out=$$( { LC_ALL=C.UTF-8 groff -ww -z -t $$mac $(TOP)/$$f && \
				LC_ALL=C.UTF-8 groff -ww -z -t -Tutf8 -rLL=78n $$mac $(TOP)/$$f; } 2>&1) && [ -z "$$out" ]; then \
			echo "ok $$n man-lint $$f"; \
		else \
			echo "not ok $$n man-lint $$f"; echo "$$out" | sed 's/^/# /'; \
		fi; \
	done | tee $(BUILD)/check/man-lint.tap; \
	[ -s $(BUILD)/check/man-lint.tap ] || \
		echo "ok 1 man-lint # SKIP no man pages in the tree" | tee $(BUILD)/check/man-lint.tap

.PHONY: install-man
install-man:
	@for f in $(DOC_MAN_PAGES); do \
		s=$${f##*.}; s=$${s:0:1}; \
		install -d $(DESTDIR)$(PREFIX)/share/man/man$$s && \
		install -m 0644 $$f $(DESTDIR)$(PREFIX)/share/man/man$$s/ || exit 1; \
	done
