#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that every path a document names in backticks exists (docs/architecture.md stays true).

Usage: check_doc_paths.py SOURCE_DIR DOC.md...
A backticked word counts as a path when it contains a slash and no space; `*` is a glob that must
match something; words with <placeholders> or an ellipsis are skipped. Exit 1 lists the missing ones.
"""
import glob
import os
import re
import sys


def main() -> int:
    root = sys.argv[1]
    missing = []
    checked = 0
    for doc in sys.argv[2:]:
        with open(doc, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                for word in re.findall(r"`([^`\s]+)`", line):
                    if "/" not in word or "<" in word or "…" in word or "://" in word:
                        continue
                    path = os.path.normpath(os.path.join(root, word))
                    found = glob.glob(path) if "*" in word else os.path.exists(path)
                    checked += 1
                    if not found:
                        missing.append(f"{doc}:{lineno}: `{word}` does not exist")
    for m in missing:
        print(m)
    print(f"check_doc_paths: {checked} paths checked, {len(missing)} missing")
    return 1 if missing or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
