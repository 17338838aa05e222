#!/usr/bin/env python3
"""scripts/check-layers on small made-up trees: a tree that keeps the rules
passes, and each kind of violation is reported (CTest repo.layers_checker).
Without this the checker could pass the real tree by checking nothing."""
import pathlib
import subprocess
import sys
import tempfile

CHECKER = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check-layers"
CHAIN = "common -> ops -> dist"


def write(root, relative, text=""):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def good_tree(root):
    write(root, "engine/layers.txt", "common\nops\ndist\n")
    write(root, "engine/CMakeLists.txt", f"# {CHAIN}\n")
    write(root, "docs/ARCHITECTURE.md", f"{CHAIN}\n")
    write(root, "engine/common/error.h")
    write(root, "engine/ops/layers.txt", "framework\nkernels/*\n")
    write(root, "engine/ops/framework/op_def.h", '#include "common/error.h"\n')
    write(root, "engine/ops/kernels/math/math_ops.cpp", '#include "ops/framework/op_def.h"\n')
    write(root, "engine/ops/kernels/nn/nn_ops.cpp", '#include "ops/kernels/math/elementwise.h"\n')
    write(root, "engine/ops/kernels/math/elementwise.h")
    write(root, "engine/dist/layers.txt", "wire control\nworker\n")
    write(root, "engine/dist/wire/wire.h", '#include "dist/control/status.h"\n')
    write(root, "engine/dist/control/status.h", '#include "dist/wire/wire.h"\n')
    write(root, "engine/dist/worker/worker.cpp", '#include "dist/wire/wire.h"\n#include "ops/framework/op_def.h"\n')
    (root / "ui").mkdir()
    (root / "app").mkdir()


def check(root):
    result = subprocess.run([sys.executable, str(CHECKER), str(root)], capture_output=True, text=True)
    return result.returncode, result.stdout


def expect_violation(name, mutate, words):
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        good_tree(root)
        mutate(root)
        code, out = check(root)
        if code != 1 or not all(w in out for w in words):
            sys.exit(f"{name}: expected exit 1 and {words}, got {code}:\n{out}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        good_tree(root)
        code, out = check(root)
        if code != 0:
            sys.exit(f"a tree keeping the rules failed:\n{out}")
    expect_violation("upward layer", lambda r: write(r, "engine/common/bad.cpp", '#include "ops/framework/op_def.h"\n'),
                     ["engine/common/bad.cpp:1", "higher layer ops"])
    expect_violation("upward sub-level", lambda r: write(r, "engine/ops/framework/bad.cpp",
                                                         '#include "ops/kernels/math/elementwise.h"\n'),
                     ["engine/ops/framework/bad.cpp:1", "higher level ops/kernels/math"])
    expect_violation("worker above wire", lambda r: write(r, "engine/dist/wire/bad.cpp",
                                                           '#include "dist/worker/worker.h"\n'),
                     ["engine/dist/wire/bad.cpp:1", "dist/worker"])
    expect_violation("unlisted sub-folder", lambda r: write(r, "engine/dist/extra/x.h"),
                     ["engine/dist/extra: folder missing from engine/dist/layers.txt"])
    expect_violation("loose file", lambda r: write(r, "engine/ops/loose.cpp"),
                     ["engine/ops/loose.cpp", "holds only its sub-folders"])
    expect_violation("Qt in the engine", lambda r: write(r, "engine/ops/framework/q.cpp", "#include <QString>\n"),
                     ["never includes Qt"])
    print("check-layers: every violation kind is reported, a clean tree passes")


if __name__ == "__main__":
    main()
