#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-layout - prove the driver's folder rules (docs/architecture.md).

Each folder under driver/ is one part. The rules:
  1. Every source file lives in a part's folder (nothing flat in driver/).
  2. A part exposes at most one interface header, <part>/pmc_<part>.h;
     every other header is private to its folder. compat/ is the one
     exception: a library of wrapper headers, one per kernel API, that any
     part may include and that includes only compat/ headers.
  3. The arch layer (arch/, arch/<SRCARCH>/) includes only arch/pmc_arch.h
     among the driver's headers (besides uapi and kernel headers).
  4. The graph of includes between parts has no cycle.
  5. Kernel versions are tested in compat/ only: no LINUX_VERSION_CODE,
     KERNEL_VERSION() or PMC_KERNEL_*() anywhere else.
Prints one TAP line per rule; exits 1 if any fails.
"""
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
drv = os.path.join(top, 'driver')
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def part_of(rel):
    """The part (first folder) a driver-relative path belongs to."""
    return rel.split('/', 1)[0] if '/' in rel else ''


files = []
for d, _, fs in os.walk(drv):
    for f in fs:
        if f.endswith(('.c', '.h')) and not f.endswith('.mod.c'):
            files.append(os.path.relpath(os.path.join(d, f), drv))
files.sort()

errors = {1: [], 2: [], 3: [], 4: [], 5: []}
ver_re = re.compile(r'\b(LINUX_VERSION_CODE|KERNEL_VERSION|PMC_KERNEL_[A-Z]+)\b')
edges = {}
for rel in files:
    part = part_of(rel)
    if not part:
        errors[1].append('%s is not in a part folder' % rel)
        continue
    text = open(os.path.join(drv, rel), encoding='utf-8').read()
    if part != 'compat':
        for n, line in enumerate(text.split('\n'), 1):
            if ver_re.search(line):
                errors[5].append('%s:%d: %s' % (rel, n, line.strip()))
    for name in inc_re.findall(text):
        here = os.path.normpath(os.path.join(os.path.dirname(rel), name))
        if os.path.exists(os.path.join(drv, here)):
            target = here
        elif os.path.exists(os.path.join(drv, name)):
            target = os.path.normpath(name)
        else:
            continue    # generated or outside the driver (none today)
        tpart = part_of(target)
        if part == 'arch' and target != 'arch/pmc_arch.h':
            errors[3].append('%s includes %s' % (rel, target))
        if tpart == part:
            continue
        if part == 'compat':
            errors[2].append('%s (compat) includes %s' % (rel, target))
        if tpart != 'compat' and target != '%s/pmc_%s.h' % (tpart, tpart):
            errors[2].append('%s includes %s, private to %s/' % (rel, target, tpart))
        edges.setdefault(part, set()).add(tpart)

# Rule 4: depth-first search for a cycle between parts.
state = {}
cycle = []


def visit(p, path):
    state[p] = 1
    for q in sorted(edges.get(p, ())):
        if state.get(q) == 1:
            cycle.append(' -> '.join(path[path.index(q):] + [q]) if q in path else p + ' -> ' + q)
        elif not state.get(q):
            visit(q, path + [q])
    state[p] = 2


for p in sorted(edges):
    if not state.get(p):
        visit(p, [p])
errors[4] = cycle

names = {1: 'every driver source file is in a part folder',
         2: 'cross-part includes name only interface headers (or compat/)',
         3: 'the arch layer includes only arch/pmc_arch.h',
         4: 'the include graph between parts has no cycle',
         5: 'kernel versions are tested in compat/ only'}
bad = 0
for n in (1, 2, 3, 4, 5):
    if errors[n]:
        bad = 1
        print('not ok %d layout: %s' % (n, names[n]))
        for e in errors[n]:
            print('# ' + e)
    else:
        print('ok %d layout: %s' % (n, names[n]))
print('# parts: ' + '; '.join('%s -> %s' % (p, ', '.join(sorted(edges[p])))
                              for p in sorted(edges)))
sys.exit(bad)
