#!/usr/bin/env python3
"""No source file of the emulator over 1,000 lines (issue 37's rule for a codebase one can live in):
every .cpp and .h under the folders given, generated code (a "generated" folder) left out. Exit 1
with one line per file over the limit, naming its length and the limit."""
import os
import sys

LIMIT = 1000


def main():
    over = []
    for root in sys.argv[1:]:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in ("generated", "node_modules", "dist"))
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = sum(1 for _ in f)
                if lines > LIMIT:
                    over.append(f"{os.path.relpath(path, os.path.dirname(root))}: {lines} lines (at most {LIMIT})")
    for line in over:
        print(line)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
