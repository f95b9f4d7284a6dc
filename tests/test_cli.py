"""The `s2s` command: subcommand registry, `s2s opt`, forwarding of `s2s bench` and `s2s cc`."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from c_build import without_settings

from s2s import __version__, cli
from s2s.errors import ParseError, S2SError, SourceLocation

S2S = Path(sys.executable).with_name("s2s")

KERNEL = """\
#include <stdio.h>
#define N 32
static double a[N], b[N];
int main(void) {
  for (int i = 0; i < N; i++) a[i] = i;
  for (int i = 1; i < N; i++) b[i] = a[i] + a[i - 1];
  double s = 0;
  for (int i = 0; i < N; i++) s += b[i];
  printf("%g\\n", s);
  return 0;
}
"""


def env() -> dict[str, str]:
    return without_settings()


def s2s(args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(S2S), *map(str, args)], cwd=cwd, env=env(), capture_output=True, text=True,
                          input="", timeout=120)


def build_and_run(source: Path, cwd: Path) -> str:
    exe = cwd / (source.stem + ".exe")
    subprocess.run(["cc", "-O1", str(source), "-o", str(exe)], check=True, cwd=cwd)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def test_version():
    r = subprocess.run([str(S2S), "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == f"s2s {__version__}"


def test_registry_commands_are_documented_and_reachable():
    help_text = cli.build_parser().format_help()
    for name, command in cli.COMMANDS.items():
        assert command.help and name in help_text
    assert {"opt", "bench", "cc"} <= set(cli.COMMANDS)


def test_no_command_prints_usage(capsys):
    assert cli.main([]) == 2
    assert "usage: s2s" in capsys.readouterr().err


def test_opt_writes_generated_c_that_computes_the_same(tmp_path):
    src = tmp_path / "k.c"
    src.write_text(KERNEL)
    r = s2s(["opt", "k.c", "-o", "out.c"], tmp_path)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "out.c").read_text()
    assert out.startswith("#line 1 ") and '"k.c"' in out.splitlines()[0]
    assert build_and_run(tmp_path / "out.c", tmp_path) == build_and_run(src, tmp_path) == "961\n"
    r = s2s(["opt", "k.c"], tmp_path)  # no -o: stdout
    assert r.returncode == 0 and r.stdout == out


def test_opt_emit_ir(tmp_path):
    (tmp_path / "k.c").write_text(KERNEL)
    r = s2s(["opt", "k.c", "-o", "out.c", "--emit-ir", "k.json"], tmp_path)
    assert r.returncode == 0, r.stderr
    json.loads((tmp_path / "k.json").read_text())


def test_opt_emit_ir_without_ir_is_an_error(tmp_path, monkeypatch, capsys):
    from s2s.driver import pipeline

    (tmp_path / "k.c").write_text(KERNEL)
    monkeypatch.setattr(pipeline, "optimize_c_file",
                        lambda path, args, opts: pipeline.PipelineResult(source="x", changed=False))
    assert cli.main(["opt", str(tmp_path / "k.c"), "-o", str(tmp_path / "o.c"),
                     "--emit-ir", str(tmp_path / "k.json")]) == 1
    assert "--emit-ir" in capsys.readouterr().err
    assert not (tmp_path / "o.c").exists() and not (tmp_path / "k.json").exists()


def test_opt_preprocessor_flags_keep_their_order(tmp_path, monkeypatch):
    from s2s.driver import pipeline

    seen = {}

    def fake(path, cpp_args, options):
        seen.update(cpp_args=list(cpp_args), options=options)
        return pipeline.PipelineResult(source="int x;\n", changed=False)

    monkeypatch.setattr(pipeline, "optimize_c_file", fake)
    (tmp_path / "k.c").write_text("int x;\n")
    rc = cli.main(["opt", str(tmp_path / "k.c"), "-o", str(tmp_path / "o.c"), "-DX=1", "-I", "inc",
                   "-include", "h.h", "-std=c99", "-UY", "-Iother", "-D", "Z", "--mode", "off"])
    assert rc == 0
    assert seen["cpp_args"] == ["-DX=1", "-Iinc", "-include", "h.h", "-std=c99", "-UY", "-Iother", "-DZ"]
    assert seen["options"].mode == "off"


def test_opt_syntax_error_is_reported_cleanly(tmp_path):
    (tmp_path / "bad.c").write_text("int main(void) {\n  int x = 1\n  return x;\n}\n")
    r = s2s(["opt", "bad.c", "-o", "out.c"], tmp_path)
    assert r.returncode == 1
    assert re.search(r"^bad\.c:3:3: error", r.stderr, re.MULTILINE), r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out.c").exists()


@pytest.mark.parametrize("error, expected", [
    (ParseError("unsupported construct", SourceLocation("f.c", 2, 5)), "f.c:2:5: error: unsupported construct"),
    (S2SError("something odd"), "f.c: error: something odd"),
    (S2SError("f.c:4:1: error: expected ';'\n    4 | x\n"), "f.c:4:1: error: expected ';'"),
])
def test_opt_error_messages(tmp_path, monkeypatch, capsys, error, expected):
    from s2s.driver import pipeline

    def fail(*_):
        raise error

    monkeypatch.setattr(pipeline, "optimize_c_file", fail)
    monkeypatch.chdir(tmp_path)
    Path("f.c").write_text("int x;\n")
    assert cli.main(["opt", "f.c", "-o", "o.c"]) == 1
    assert capsys.readouterr().err.splitlines()[0] == expected


def test_opt_missing_input(tmp_path, capsys):
    assert cli.main(["opt", str(tmp_path / "nope.c")]) == 1
    assert "nope.c: error: no such file" in capsys.readouterr().err


def test_bench_forwards_every_argument(monkeypatch):
    seen = {}
    fake = types.ModuleType("polybench.harness.cli")
    fake.main = lambda argv: seen.setdefault("argv", argv) and 3
    monkeypatch.setitem(sys.modules, "polybench.harness.cli", fake)
    args = ["--dataset", "MINI", "--kernels", "gemm", "-j", "2", "--help-me"]
    assert cli.main(["bench", *args]) == 3
    assert seen["argv"] == args


def test_bench_missing_harness_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "polybench.harness.cli", None)
    assert cli.main(["bench", "--list"]) == 2
    assert "benchmark harness is not available" in capsys.readouterr().err


def test_cc_subcommand_is_s2s_cc(tmp_path):
    (tmp_path / "k.c").write_text(KERNEL)
    r = s2s(["cc", "-O2", "k.c", "-o", "k"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(tmp_path / "k")], capture_output=True, text=True).stdout == "961\n"
