#!/usr/bin/env python3
"""The emulator's layers, checked against the build: every include in a layer's sources names a
header of that layer or of a library it links (directly or through others), never one above it or
beside it. The graph is the build's own: CMake writes each layer library's sources and links into
the JSON file given as the first argument (tests/CMakeLists.txt); this script reads the includes.

A header belongs to the library that compiles the .cpp of the same name; a header without one
belongs to the libraries whose sources share its folder (including it needs one of them).
Exit 1 with one line per offending include."""
import json
import os
import re
import sys


def main():
    graph = json.load(open(sys.argv[1]))
    roots = graph["include_roots"]  # where "folder/file.h" includes are found, in order
    libs = graph["libraries"]  # name -> {"dir": ..., "sources": [...], "links": [...]}

    def as_included(path):  # "store/store.cpp" for .../emulator/store/store.cpp
        for r in roots:
            if path.startswith(r + "/"):
                return os.path.relpath(path, r)
        return None

    def find(inc):
        return next((os.path.join(r, inc) for r in roots if os.path.exists(os.path.join(r, inc))), None)

    owner = {}  # source as included, without extension -> library
    folder_libs = {}  # folder -> set of libraries with sources there
    for name, lib in libs.items():
        lib["sources"] = [os.path.join(lib["dir"], s) for s in lib["sources"]]
        for s in lib["sources"]:
            rel = as_included(s)
            if rel is None:
                continue  # generated (the parser's ANTLR sources)
            owner[os.path.splitext(rel)[0]] = name
            folder_libs.setdefault(os.path.dirname(rel), set()).add(name)
    closure = {}

    def reach(name):
        if name not in closure:
            closure[name] = set()
            out = {name}
            for d in libs.get(name, {}).get("links", []):
                if d in libs:
                    out |= reach(d)
            closure[name] = out
        return closure[name]

    def libraries_of(header):  # the library that owns it, or those it may belong to
        stem = os.path.splitext(header)[0]
        if stem in owner:
            return {owner[stem]}
        return folder_libs.get(os.path.dirname(header), set())

    bad = []
    checked = 0
    for name, lib in libs.items():
        files = set()
        for s in lib["sources"]:
            if as_included(s) is None:
                continue
            files.add(s)
            h = os.path.splitext(s)[0] + ".h"
            if os.path.exists(h):
                files.add(h)
        for f in sorted(files):
            text = open(f, encoding="utf-8", errors="replace").read()
            for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
                inc = m.group(1)
                if "/" not in inc or find(inc) is None:
                    continue  # not one of ours (a sibling, a generated file)
                targets = libraries_of(inc)
                checked += 1
                if not targets:
                    bad.append(f"{as_included(f)}: includes {inc}, which no layer owns")
                elif not targets & reach(name):
                    bad.append(f"{as_included(f)} ({name}) includes {inc} ({' or '.join(sorted(targets))}), "
                               f"a layer {name} does not link")
    for b in bad:
        print(b)
    print(f"{checked} includes across {len(libs)} layers checked, {len(bad)} going up or sideways")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
