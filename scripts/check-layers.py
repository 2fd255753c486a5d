#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a source file includes a header of a layer its own layer does not depend on.

The layer graph is read from the top-level CMakeLists.txt: every `cairn_layer(NAME DIRS ... DEPS
...)` call is one layer owning the listed directories of src/. Only `cairn_*` entries of DEPS are
layer dependencies; a layer may include headers of itself and of every layer its DEPS reach,
directly or transitively. Every .h/.cc file under src/ is scanned for project includes
(`#include "dir/..."`, and `<dir/...>` when that names a file under src/). Reported, each as
`file:line: message`, and exit status 1:
  - an include of a layer outside the including layer's allowed set;
  - an include of a src/ directory that belongs to no layer, or a source file in one;
  - a quoted include that resolves to no file under src/ (so a typo cannot pass silently);
  - an include in an executable's own source (src/main.cc) of anything but the layers that
    executable links directly;
  - a DEPS entry naming no layer, a directory claimed by two layers, a dependency cycle.
Otherwise it prints one summary line and exits 0.

  scripts/check-layers.py [--root DIR]   check the tree at DIR (default: this script's checkout)
  scripts/check-layers.py --self-test    check the checker on small planted trees
"""

import argparse
import os
import re
import sys
import tempfile

SOURCE_SUFFIXES = (".h", ".cc")
LAYER_CALL = re.compile(r"\bcairn_layer\s*\(")
EXECUTABLE_CALL = re.compile(r"\badd_executable\s*\(")
LINK_CALL = re.compile(r"\btarget_link_libraries\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
LINK_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE"}


class ConfigError(Exception):
    """The CMakeLists.txt does not describe a usable layer graph."""


def strip_cmake_comments(text):
    # CMake line comments; none of the calls read here quote a '#'.
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def cmake_calls(text, pattern):
    """Yields the whitespace-separated arguments of every call matching `pattern`."""
    for match in pattern.finditer(text):
        depth, pos = 1, match.end()
        while pos < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[pos], 0)
            pos += 1
        if depth:
            raise ConfigError(f"unbalanced parentheses after '{match.group(0)}'")
        yield text[match.end():pos - 1].split()


class Layers:
    """The layer graph of one CMakeLists.txt."""

    def __init__(self, cmake_text):
        text = strip_cmake_comments(cmake_text)
        self.deps = {}       # layer -> its direct cairn_* DEPS
        self.dir_layer = {}  # src-relative directory -> layer
        for args in cmake_calls(text, LAYER_CALL):
            if not args:
                raise ConfigError("cairn_layer() without a name")
            name, section = args[0], None
            if name in self.deps:
                raise ConfigError(f"layer {name} is declared twice")
            self.deps[name] = []
            for arg in args[1:]:
                if arg in ("DIRS", "DEPS"):
                    section = arg
                elif "${" in arg:
                    raise ConfigError(f"{name}: cannot evaluate '{arg}'; list directories and "
                                      "layers literally")
                elif section == "DIRS":
                    directory = arg.strip("/")
                    if directory in self.dir_layer:
                        raise ConfigError(f"src/{directory} is claimed by both "
                                          f"{self.dir_layer[directory]} and {name}")
                    self.dir_layer[directory] = name
                elif section == "DEPS" and arg.startswith("cairn_"):
                    self.deps[name].append(arg)
                elif section is None:
                    raise ConfigError(f"{name}: '{arg}' before DIRS or DEPS")
        if not self.deps:
            raise ConfigError("no cairn_layer(...) calls found")
        for name, deps in self.deps.items():
            for dep in deps:
                if dep not in self.deps:
                    raise ConfigError(f"{name} DEPS {dep}, which is not a layer")
        self._check_acyclic()
        self.allowed = {name: self._closure(name) for name in self.deps}
        self.executables = self._executables(text)

    def _check_acyclic(self):
        state = {}  # layer -> "open" while on the current path, "done" after

        def visit(name, path):
            if state.get(name) == "done":
                return
            if state.get(name) == "open":
                cycle = path[path.index(name):] + [name]
                raise ConfigError("dependency cycle: " + " -> ".join(cycle))
            state[name] = "open"
            for dep in self.deps[name]:
                visit(dep, path + [name])
            state[name] = "done"

        for name in self.deps:
            visit(name, [])

    def _closure(self, name):
        seen, todo = {name}, [name]
        while todo:
            for dep in self.deps[todo.pop()]:
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return seen

    def _executables(self, text):
        """Maps each executable's src/ source to the layers that executable links directly."""
        sources = {}  # target -> src-relative sources
        for args in cmake_calls(text, EXECUTABLE_CALL):
            for arg in args[1:]:
                arg = arg.replace("${CMAKE_SOURCE_DIR}/", "")
                if arg.startswith("src/"):
                    sources.setdefault(args[0], []).append(arg[len("src/"):])
        links = {}
        for args in cmake_calls(text, LINK_CALL):
            if args and args[0] in sources:
                links.setdefault(args[0], set()).update(
                    a for a in args[1:] if a not in LINK_KEYWORDS and a in self.deps)
        result = {}
        for target, files in sources.items():
            for source in files:
                result[source] = (target, links.get(target, set()))
        return result

    def layer_of(self, relpath):
        """The layer owning a src-relative path and the DIRS entry naming it, or (None, None)."""
        parts = relpath.split("/")
        for n in range(len(parts) - 1, 0, -1):
            directory = "/".join(parts[:n])
            if directory in self.dir_layer:
                return self.dir_layer[directory], directory
        return None, None


def resolve(src, including_dir, name, quoted):
    """The src-relative path an include names, as the compiler would find it, or None.

    A quoted include is looked up beside the including file first, then under the include
    root; an angle include only under the include root.
    """
    bases = [including_dir, src] if quoted else [src]
    for base in bases:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            rel = os.path.relpath(candidate, src)
            return None if rel.startswith("..") else rel.replace(os.sep, "/")
    return None


def source_files(src):
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for filename in sorted(filenames):
            if filename.endswith(SOURCE_SUFFIXES):
                path = os.path.join(dirpath, filename)
                yield os.path.relpath(path, src).replace(os.sep, "/")


def check(root):
    """Returns (problems, summary) for the tree at `root`; no problems means it passes."""
    try:
        with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
            layers = Layers(f.read())
    except (OSError, ConfigError) as e:
        return [f"CMakeLists.txt: {e}"], ""
    src = os.path.join(root, "src")
    if not os.path.isdir(src):
        return [f"{src}: no such directory"], ""
    problems, files, includes = [], 0, 0
    for directory in sorted(layers.dir_layer):
        if not os.path.isdir(os.path.join(src, directory)):
            problems.append(f"CMakeLists.txt: {layers.dir_layer[directory]} DIRS {directory}, "
                            f"but src/{directory} does not exist")
    for rel in source_files(src):
        files += 1
        layer, layer_dir = layers.layer_of(rel)
        executable = layers.executables.get(rel)
        if layer is not None:
            allowed, who = layers.allowed[layer], layer_dir
        elif executable is not None:
            target, allowed = executable
            who = f"{rel} (executable {target})"
        else:
            problems.append(f"src/{rel}: in no layer: no cairn_layer(... DIRS ...) in "
                            "CMakeLists.txt owns its directory")
            continue
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            quoted = match.group(1) is not None
            name = match.group(1) if quoted else match.group(2)
            target = resolve(src, os.path.dirname(os.path.join(src, rel)), name, quoted)
            where = f"src/{rel}:{number}"
            if target is None:
                if quoted:
                    includes += 1
                    problems.append(f'{where}: "{name}" resolves to no file under src/')
                continue  # an angle include of a system or third-party header
            includes += 1
            target_layer, _ = layers.layer_of(target)
            if target_layer is None:
                problems.append(f"{where}: {who} includes {target}, but src/"
                                f"{os.path.dirname(target) or target} belongs to no layer")
            elif target_layer not in allowed:
                if layer is not None:
                    problems.append(f"{where}: {who} includes {target}, but {layer} does not "
                                    f"depend on {target_layer}")
                else:
                    links = ", ".join(sorted(allowed)) or "no layer"
                    problems.append(f"{where}: {who} includes {target}, but it links only "
                                    f"{links} directly")
    summary = (f"layering ok: {len(layers.deps)} layers, {files} files, {includes} project "
               "includes checked")
    return problems, summary


def run(root):
    problems, summary = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"layering: {len(problems)} problem(s); see docs/architecture.md#layers",
              file=sys.stderr)
        return 1
    print(summary)
    return 0


# The self-test: small trees, each with what the checker must say about it.
SELF_TEST_CMAKE = """
function(cairn_layer name)
endfunction()
cairn_layer(cairn_low DIRS low DEPS fmt::fmt)   # a non-layer dependency is ignored
cairn_layer(cairn_mid DIRS mid DEPS cairn_low)
cairn_layer(cairn_top DIRS top extra/nested DEPS cairn_mid Threads::Threads)
add_executable(tool src/main.cc)
target_link_libraries(tool PRIVATE cairn_top)
"""

CLEAN_TREE = {
    "CMakeLists.txt": SELF_TEST_CMAKE,
    "src/low/a.h": "#pragma once\n#include <string>\n",
    "src/low/a.cc": '#include "low/a.h"\n',
    "src/mid/b.h": '#pragma once\n#include "low/a.h"\n',
    "src/mid/b.cc": '#include "b.h"\n#include "mid/b.h"\n',
    "src/top/c.cc": '#include "low/a.h"\n#include "mid/b.h"\n#include "extra/nested/d.h"\n',
    "src/extra/nested/d.h": '#pragma once\n#include "../../mid/b.h"\n',
    "src/main.cc": '#include "top/c.h"\n',
    "src/top/c.h": "#pragma once\n",
}

# (what is planted, files changed from the clean tree, text the report must contain)
BROKEN_TREES = [
    ("an upward include", {"src/low/a.cc": '#include "low/a.h"\n\n#include "mid/b.h"\n'},
     "src/low/a.cc:3: low includes mid/b.h, but cairn_low does not depend on cairn_mid"),
    ("an upward include two layers up", {"src/low/a.h": '#pragma once\n#include "top/c.h"\n'},
     "src/low/a.h:2: low includes top/c.h, but cairn_low does not depend on cairn_top"),
    ("an upward angle include", {"src/mid/b.cc": "#include <top/c.h>\n"},
     "src/mid/b.cc:1: mid includes top/c.h, but cairn_mid does not depend on cairn_top"),
    ("an upward include beside the file", {"src/low/a.cc": '#include "../top/c.h"\n'},
     "src/low/a.cc:1: low includes top/c.h, but cairn_low does not depend on cairn_top"),
    ("an include of a directory in no layer",
     {"src/stray/s.inc": "", "src/top/c.cc": '#include "stray/s.inc"\n'},
     "src/top/c.cc:1: top includes stray/s.inc, but src/stray belongs to no layer"),
    ("a source file in no layer", {"src/stray/s.cc": ""}, "src/stray/s.cc: in no layer"),
    ("a misspelt include", {"src/top/c.cc": '#include "mid/bb.h"\n'},
     'src/top/c.cc:1: "mid/bb.h" resolves to no file under src/'),
    ("an include that leaves src/", {"README": "", "src/top/c.cc": '#include "../../README"\n'},
     'src/top/c.cc:1: "../../README" resolves to no file under src/'),
    ("main.cc reaching past the layer it links", {"src/main.cc": '#include "low/a.h"\n'},
     "src/main.cc:1: main.cc (executable tool) includes low/a.h, but it links only cairn_top"),
    ("a dependency cycle",
     {"CMakeLists.txt": SELF_TEST_CMAKE.replace("DEPS fmt::fmt", "DEPS cairn_top")},
     "dependency cycle: cairn_low -> cairn_top -> cairn_mid -> cairn_low"),
    ("a DEPS entry naming no layer",
     {"CMakeLists.txt": SELF_TEST_CMAKE.replace("DEPS cairn_low", "DEPS cairn_lowe")},
     "cairn_mid DEPS cairn_lowe, which is not a layer"),
    ("a DIRS entry naming no directory",
     {"CMakeLists.txt": SELF_TEST_CMAKE.replace("DIRS mid", "DIRS mid gone")},
     "cairn_mid DIRS gone, but src/gone does not exist"),
]


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def self_test():
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-layers-") as tmp:
        clean = os.path.join(tmp, "clean")
        write_tree(clean, CLEAN_TREE)
        problems, summary = check(clean)
        if problems:
            failures.append("the clean tree failed:\n  " + "\n  ".join(problems))
        elif "8 files, 9 project includes" not in summary:
            failures.append(f"the clean tree was not fully scanned: {summary}")
        for index, (what, changes, expected) in enumerate(BROKEN_TREES):
            tree = os.path.join(tmp, f"broken{index}")
            write_tree(tree, {**CLEAN_TREE, **changes})
            problems, _ = check(tree)
            if not any(expected in p for p in problems):
                failures.append(f"{what} was not reported as '{expected}'; got:\n  " +
                                ("\n  ".join(problems) or "(nothing)"))
            elif len(problems) != 1:
                failures.append(f"{what} gave more than the one expected report:\n  " +
                                "\n  ".join(problems))
    for failure in failures:
        print(f"self-test: {failure}")
    if failures:
        return 1
    print(f"self-test ok: a clean tree passes and {len(BROKEN_TREES)} planted faults are reported")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--root", default=checkout,
                        help="the checkout to check (default: the one holding this script)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on small planted trees instead")
    args = parser.parse_args()
    return self_test() if args.self_test else run(args.root)


if __name__ == "__main__":
    sys.exit(main())
