"""s2s-cc: command-line model, settings, and real builds (compile, link, dependency files, launcher form,
CMake, fallback). Every build test compares with what the real compiler does on the same command."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from c_build import without_settings

from s2s.driver import cc as cc_mod
from s2s.driver import command_line as cl_mod
from s2s.driver import settings as settings_mod
from s2s.driver.command_line import Passthrough, Stage, parse

S2S_CC = Path(sys.executable).with_name("s2s-cc")
NOTE = "s2s-cc: note:"


# ---- helpers ---------------------------------------------------------------------------------------
def clean_env(**extra: str) -> dict[str, str]:
    env = without_settings()
    env["S2S_CC"] = "cc"
    env["PATH"] = f"{S2S_CC.parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def run(args, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env or clean_env(),
                          input="" if stdin is None else stdin, capture_output=True, text=True,
                          timeout=timeout)


def s2s_cc(args, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return run([S2S_CC, *args], cwd, clean_env(**env))


def make_words(depfile_text: str) -> list[str]:
    """The words of a make dependency file, without line continuations (line wrapping may differ:
    gcc wraps by length, and the temporary path it saw was longer than the user's)."""
    return re.findall(r"(?:\\.|[^\s\\])+", depfile_text.replace("\\\n", " "))


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(NOTE)]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


MAIN_C = """\
#include <stdio.h>
#include "util.h"
static double a[64];
int main(void) {
  double s = 0;
  for (int i = 0; i < 64; i++) a[i] = scale(i);
  for (int i = 0; i < 64; i++) s += a[i];
  printf("%g %s\\n", s, __FILE__);
  return 0;
}
"""
UTIL_H = "double scale(int i);\n"
UTIL_C = """\
#include "util.h"
double scale(int i) { return 0.5 * i; }
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "src" / "main.c", MAIN_C)
    write(tmp_path / "src" / "util.h", UTIL_H)
    write(tmp_path / "src" / "util.c", UTIL_C)
    return tmp_path


# ---- command-line model ------------------------------------------------------------------------------
def parse_ok(args: list[str], **kw) -> cl_mod.CommandLine:
    parsed = parse(args, exists=lambda p: True, **kw)
    assert parsed.passthrough is None, parsed.reason()
    return parsed


def test_parse_compile_only():
    p = parse_ok(["-c", "foo.c", "-o", "foo.o", "-O2"])
    assert p.stage == Stage.OBJECT and p.output == "foo.o"
    assert [s.path for s in p.c_inputs] == ["foo.c"]
    assert p.compile_args() == ["-O2"]


@pytest.mark.parametrize("args, output", [
    (["-c", "a.c", "-ox.o"], "x.o"), (["-c", "a.c", "-o", "x.o"], "x.o"), (["-ca.o"], None),
])
def test_parse_output_forms(args, output):
    p = parse(args, exists=lambda p: True)
    if output is None:  # -ca.o is not -c a.o: an unknown option, so the command passes through
        assert p.passthrough is Passthrough.UNKNOWN_OPTION
    else:
        assert p.output == output


def test_parse_cpp_args_in_order_joined_and_separate():
    args = ["-Ifoo", "-I", "bar", "-DX=1", "-D", "Y", "-UZ", "-include", "a.h", "-imacros", "m.h",
            "-isystem", "s", "-iquote", "q", "-std=c99", "-O2", "-g", "-fopenmp", "-march=native", "-Wall",
            "--sysroot=/sr", "-pthread", "-Wp,-DW", "-fdiagnostics-color=never", "-c", "foo.c"]
    p = parse_ok(args)
    assert p.cpp_args() == ["-Ifoo", "-I", "bar", "-DX=1", "-D", "Y", "-UZ", "-include", "a.h",
                            "-imacros", "m.h", "-isystem", "s", "-iquote", "q", "-std=c99", "-O2",
                            "-fopenmp", "-march=native", "--sysroot=/sr", "-pthread", "-Wp,-DW"]
    assert p.compile_args() == args[:-2]


def test_parse_link_several_inputs_keeps_order():
    p = parse_ok(["a.c", "-O2", "b.c", "x.o", "-L", "lib", "-lm", "-Wl,--as-needed", "-o", "prog"])
    assert p.stage == Stage.LINK and p.output == "prog"
    assert [s.path for s in p.c_inputs] == ["a.c", "b.c"]
    assert p.compile_args() == ["-O2"]  # no -L -l -Wl, -o in a compile job
    objects = {p.index_of(p.c_inputs[0]): "/t/0.o", p.index_of(p.c_inputs[1]): "/t/1.o"}
    assert p.link_args(objects) == ["/t/0.o", "-O2", "/t/1.o", "x.o", "-L", "lib", "-lm",
                                    "-Wl,--as-needed", "-o", "prog"]


def test_parse_language_flags():
    p = parse_ok(["-x", "c", "kernel.inc", "-x", "none", "b.o", "-xc++", "c.c", "-x", "none", "d.c"])
    langs = [(i.path, i.language, i.explicit) for i in p.inputs]
    assert langs == [("kernel.inc", "c", True), ("b.o", "linker", False), ("c.c", "c++", True),
                     ("d.c", "c", False)]
    assert [s.path for s in p.c_inputs] == ["kernel.inc", "d.c"]
    assert p.cpp_args(p.c_inputs[0])[-2:] == ["-x", "c"]
    # a C input replaced by an object while `-x c` is in effect is fenced with -x none
    p = parse_ok(["-x", "c", "k.inc", "-o", "prog"])
    assert p.link_args({1: "/t/k.o"}) == ["-x", "c", "-x", "none", "/t/k.o", "-x", "c", "-o", "prog"]


@pytest.mark.parametrize("inputs", [["a.cc"], ["b.cpp"], ["c.cxx"], ["d.C"], ["e.s"], ["f.S"], ["g.o"],
                                    ["h.a"], ["i.so"], ["j.i"], ["k.h"], ["-x", "c++", "l.c"]])
def test_non_c_inputs_pass_through(inputs):
    p = parse([*inputs, "-c"], exists=lambda p: True)
    assert p.passthrough is Passthrough.NO_C_INPUT


def test_cxx_driver_compiles_dot_c_as_cxx():
    assert parse(["-c", "a.c"], cxx=True, exists=lambda p: True).passthrough is Passthrough.NO_C_INPUT
    assert cc_mod._is_cxx_driver("/usr/bin/g++-12") and cc_mod._is_cxx_driver("clang++")
    assert not cc_mod._is_cxx_driver("gcc") and not cc_mod._is_cxx_driver("/usr/bin/cc")


@pytest.mark.parametrize("args, why", [
    (["-E", "a.c"], Passthrough.PREPROCESS_ONLY),
    (["-M", "a.c"], Passthrough.PREPROCESS_ONLY),
    (["-MM", "a.c"], Passthrough.PREPROCESS_ONLY),
    (["-dM", "-E", "-x", "c", "/dev/null"], Passthrough.PROBE),
    (["-###", "a.c"], Passthrough.PROBE),
    (["--version"], Passthrough.PROBE),
    (["-v"], Passthrough.NO_C_INPUT),
    (["-print-file-name=libc.so"], Passthrough.PROBE),
    (["-print-search-dirs"], Passthrough.PROBE),
    (["--print-prog-name=ld"], Passthrough.PROBE),
    (["-dumpversion"], Passthrough.PROBE),
    (["-dumpmachine"], Passthrough.PROBE),
    (["-fsyntax-only", "a.c"], Passthrough.SYNTAX_ONLY),
    (["-x", "c", "-", "-c"], Passthrough.STDIN),
    (["-Zfoo", "a.c"], Passthrough.UNKNOWN_OPTION),
    (["--frobnicate", "x", "a.c"], Passthrough.UNKNOWN_OPTION),
    (["-c", "a.c", "-o"], Passthrough.MISSING_ARGUMENT),
    (["-c", "a.c", "-I"], Passthrough.MISSING_ARGUMENT),
    (["-c", "a.c", "b.c", "-o", "x.o"], Passthrough.MULTIPLE_OUTPUTS),
    (["a.c", "-o", "x", "-o", "y"], Passthrough.MULTIPLE_OUTPUTS),
    (["-MD", "a.c", "-o", "prog"], Passthrough.DEPENDENCIES_WHILE_LINKING),
    (["-save-temps", "-c", "a.c"], Passthrough.SAVE_TEMPS),
    ([], Passthrough.NO_C_INPUT),
])
def test_probes_and_unknowns_pass_through(args, why):
    assert parse(args, exists=lambda p: True).passthrough is why


def test_missing_c_input_passes_through(tmp_path):
    assert parse(["-c", str(tmp_path / "nope.c")]).passthrough is Passthrough.MISSING_INPUT


def test_link_only_flags_not_in_compile_jobs():
    p = parse_ok(["-c", "a.c", "-lm", "-L/x", "-Wl,-O1", "-Xlinker", "-q", "-shared", "-pthread", "-O2",
                  "-fPIC", "-static", "-pie", "-no-pie", "-rdynamic", "-z", "now", "-u", "sym", "-g"])
    assert p.compile_args() == ["-pthread", "-O2", "-fPIC", "-g"]


def test_flag_families_are_known():
    p = parse_ok(["-c", "a.c", "-Os", "-Ofast", "-g3", "-ggdb", "-gdwarf-4", "-fno-strict-aliasing",
                  "-mavx2", "-mtune=native", "-Wextra", "-Wno-unused", "-Werror=format", "-w", "-pedantic",
                  "-Wa,--noexecstack", "-Xassembler", "--64", "-Xpreprocessor", "-DQ", "-B", "/b",
                  "--param", "max-unroll-times=4", "--param=l1-cache-size=32", "-idirafter", "d",
                  "-iprefix", "p", "-iwithprefix", "w", "-iwithprefixbefore", "wb", "-MP", "-MT", "t",
                  "-MQ", "q", "-MF", "f.d", "-MMD", "-ansi", "-nostdinc", "-undef", "-target", "x86_64-linux-gnu"])
    assert p.cpp_args() == ["-Os", "-Ofast", "-fno-strict-aliasing", "-mavx2", "-mtune=native",
                            "-Xpreprocessor", "-DQ", "-B", "/b", "-idirafter", "d", "-iprefix", "p",
                            "-iwithprefix", "w", "-iwithprefixbefore", "wb", "-ansi", "-nostdinc", "-undef",
                            "-target", "x86_64-linux-gnu"]


@pytest.mark.parametrize("args, output, depfile", [
    (["-MD", "-c", "a.c"], "obj/a.o", "obj/a.d"),
    (["-MMD", "-MF", "x.d", "-c", "a.c"], "a.o", "x.d"),
    (["-MMD", "-MFx.d", "-c", "a.c"], "a.o", "x.d"),
    (["-Wp,-MD,.a.o.d", "-c", "a.c"], "a.o", ".a.o.d"),
    (["-c", "a.c", "-MF", "x.d"], "a.o", None),
    (["-c", "a.c"], "a.o", None),
])
def test_depfile_names(args, output, depfile):
    assert parse_ok(args).depfile(output) == depfile


def test_default_outputs():
    p = parse_ok(["-c", "dir/a.c"])
    assert p.default_output(p.c_inputs[0]) == "a.o"
    p = parse_ok(["-S", "dir/a.b.c"])
    assert p.default_output(p.c_inputs[0]) == "a.b.s"


def test_response_files(tmp_path):
    inner = write(tmp_path / "inner.rsp", "-DINNER\n")
    rsp = write(tmp_path / "args.rsp", f'-DX="a b" -I\'my dir\' -DY=back\\\\slash\n@{inner}  -c\ta.c\n')
    assert cl_mod.expand_response_files(["-O2", f"@{rsp}", "@/no/such/file"]) == [
        "-O2", "-DX=a b", "-Imy dir", "-DY=back\\slash", "-DINNER", "-c", "a.c", "@/no/such/file"]
    tricky = ["", "a b", "q'uote", 'd"q', "back\\", "tab\there", "new\nline", "plain"]
    assert cl_mod._split_response(cl_mod.quote_response(tricky)) == tricky


def test_launcher_detection(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    for name in ("mycc", "ccache"):
        exe = write(bindir / name, "#!/bin/sh\n")
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    assert cc_mod.split_launcher(["mycc", "-c", "a.c"]) == (("mycc",), ["-c", "a.c"])
    assert cc_mod.split_launcher([str(bindir / "mycc"), "-c"]) == ((str(bindir / "mycc"),), ["-c"])
    assert cc_mod.split_launcher(["ccache", "mycc", "-O2"]) == (("ccache", "mycc"), ["-O2"])
    assert cc_mod.split_launcher(["-c", "a.c"]) == ((), ["-c", "a.c"])
    assert cc_mod.split_launcher(["a.c", "-o", "x"]) == ((), ["a.c", "-o", "x"])
    write(tmp_path / "mycc", "")  # a file argument in the current directory is an input, not a compiler
    assert cc_mod.split_launcher(["mycc", "-c"]) == ((), ["mycc", "-c"])
    assert cc_mod.split_launcher(["no-such-compiler-xyz", "-c"])[0] == ()


# ---- settings ----------------------------------------------------------------------------------------
def test_settings_flags_then_env_then_defaults():
    flags, rest = settings_mod.split_flags(["--s2s-mode=off", "-c", "--s2s-keep", "kd", "a.c",
                                            "--s2s-report", "--s2s-timeout=5"])
    assert rest == ["-c", "a.c"]
    env = {"S2S_MODE": "identity", "S2S_TARGET": "openmp", "S2S_CC": "ccache gcc -m64", "S2S_TIMEOUT": "9"}
    s = settings_mod.resolve(flags, env)
    assert (s.mode, s.target, s.keep_dir, s.report, s.timeout) == ("off", "openmp", "kd", True, 5.0)
    assert s.compiler == ("ccache", "gcc", "-m64") and s.compiler_name == "gcc"
    assert s.warnings == ()
    d = settings_mod.resolve([], {})
    assert (d.compiler, d.mode, d.target, d.report, d.keep_dir, d.timeout, d.disable) == (
        ("cc",), "pluto", "c", False, None, 60.0, False)
    assert settings_mod.resolve([], {"S2S_DISABLE": "1", "S2S_REPORT": "yes"}).disable
    assert settings_mod.resolve([("cc", "clang")], {"S2S_CC": "gcc"}, launcher=("tcc",)).compiler == ("tcc",)
    assert settings_mod.resolve([("cc", "clang")], {"S2S_CC": "gcc"}).compiler == ("clang",)
    assert d.kernels and d.pipeline_options().kernels
    assert not settings_mod.resolve([("kernels", "off")], {"S2S_KERNELS": "on"}).pipeline_options().kernels
    assert d.profitability and d.pipeline_options().profitability
    assert not settings_mod.resolve([], {"S2S_PROFITABILITY": "off"}).pipeline_options().profitability
    assert d.pipeline_options().tune == "off"
    assert settings_mod.resolve([("tune", "transfer")], {}).pipeline_options().tune == "transfer"
    bad = settings_mod.resolve([], {"S2S_TUNE": "always"})
    assert bad.tune == "off" and "S2S_TUNE" in bad.warnings[0]


def test_settings_bad_values_warn_and_use_defaults():
    s = settings_mod.resolve([("mode", "fast"), ("bogus", None)],
                             {"S2S_TIMEOUT": "soon", "S2S_REPORT": "maybe", "S2S_INJECT_FAULT": "x"})
    assert (s.mode, s.timeout, s.report, s.inject_fault) == ("pluto", 60.0, False, None)
    assert len(s.warnings) == 5 and all("s2s" in w.lower() for w in s.warnings)
    opts = settings_mod.resolve([("target", "openmp")], {}).pipeline_options()
    assert (opts.mode, opts.target, opts.compiler) == ("pluto", "openmp", "cc")


def test_time_limit_main_thread_and_worker_thread():
    assert cc_mod.run_with_time_limit(lambda: 42, 1) == 42
    with pytest.raises(cc_mod.OptimizeTimeout):
        cc_mod.run_with_time_limit(lambda: time.sleep(5), 0.2)
    box = {}

    def in_thread():
        try:
            cc_mod.run_with_time_limit(lambda: time.sleep(5), 0.2)
        except cc_mod.OptimizeTimeout as exc:
            box["exc"] = exc
    t = threading.Thread(target=in_thread)
    t.start()
    t.join(3)
    assert isinstance(box.get("exc"), cc_mod.OptimizeTimeout)


def test_cpp_args_handed_to_pipeline(tmp_path, monkeypatch):
    """In-process: the pipeline gets the user's preprocessor flags in order, the file as given."""
    from s2s.driver import pipeline

    src = write(tmp_path / "k.c", "int k(void) { int s = 0; for (int i = 0; i < KV; i++) s += i; return s; }\n")
    seen = {}

    def fake(path, cpp_args, options, preprocessed=None):
        seen.update(path=str(path), cpp_args=list(cpp_args), options=options)
        return pipeline.PipelineResult(source=f'#line 1 "{path}"\n' + Path(path).read_text(), changed=False)

    monkeypatch.setattr(pipeline, "optimize_c_file", fake)
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("S2S_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("S2S_CACHE_DIR", str(tmp_path / "cache"))   # (not the user's)
    # --s2s-timeout=0 keeps the optimize step in this process (with a limit it runs in a child)
    rc = cc_mod.main(["--s2s-cc=cc", "--s2s-timeout=0", "--s2s-target=openmp", "-DKV=3", "-c", "-Wall", "-I", "inc",
                      "-O2", src.name, "-lm", "-o", "k.o"])
    assert rc == 0 and (tmp_path / "k.o").is_file()
    assert seen["path"] == "k.c" and seen["cpp_args"] == ["-DKV=3", "-I", "inc", "-O2"]
    assert seen["options"].target == "openmp" and seen["options"].compiler == "cc"


# ---- builds ------------------------------------------------------------------------------------------
def test_compile_and_link_one_file(tmp_path):
    write(tmp_path / "hello.c", '#include <stdio.h>\nint main(void){int s=0;for(int i=0;i<10;i++)s+=i;'
                                'printf("%d %s\\n",s,__FILE__);return 0;}\n')
    r = s2s_cc(["-O2", "-Wall", "hello.c", "-o", "hello"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert not notes(r.stderr)
    assert run([tmp_path / "hello"], tmp_path).stdout == "45 hello.c\n"


def test_compile_and_link_several_files_in_order(project):
    write(project / "lib.c", "double libval(void) { return 1.0; }\n")
    assert run(["cc", "-c", "lib.c", "-o", "lib.o"], project).returncode == 0
    r = s2s_cc(["-O2", "-Isrc", "src/main.c", "lib.o", "src/util.c", "-lm", "-o", "prog"], project)
    assert r.returncode == 0, r.stderr
    assert not notes(r.stderr)
    assert run([project / "prog"], project).stdout == "1008 src/main.c\n"


def test_compile_only_with_and_without_o(project):
    r = s2s_cc(["-c", "-Isrc", "src/main.c", "-o", "m.o"], project)
    assert r.returncode == 0, r.stderr
    assert (project / "m.o").is_file()
    r = s2s_cc(["-c", "src/util.c", "src/main.c"], project)  # several inputs, default names in cwd
    assert r.returncode == 0, r.stderr
    assert (project / "util.o").is_file() and (project / "main.o").is_file()
    r = run(["cc", "m.o", "util.o", "-o", "prog"], project)
    assert r.returncode == 0 and run([project / "prog"], project).stdout == "1008 src/main.c\n"


def test_assembly_output(project):
    r = s2s_cc(["-S", "src/util.c"], project)
    assert r.returncode == 0, r.stderr
    text = (project / "util.s").read_text()
    assert "scale" in text and '.file\t"util.c"' in text
    r = s2s_cc(["-S", "src/util.c", "-o", "-"], project)
    assert r.returncode == 0 and "scale:" in r.stdout


def test_preprocess_only_passes_through(project):
    args = ["-E", "-DQ=7", "src/main.c"]
    assert s2s_cc(args, project).stdout == run(["cc", *args], project).stdout
    probe = ["-dM", "-E", "-x", "c", "-"]
    assert s2s_cc(probe, project).stdout == run(["cc", *probe], project, stdin="").stdout


@pytest.mark.parametrize("flags", [["-MD"], ["-MMD"], ["-MMD", "-MP", "-MF", "deps/m.d"],
                                   ["-MD", "-MT", "custom-target", "-MF", "m.dep"], ["-Wp,-MD,wp.d"]])
def test_depfile_names_original_source(project, flags):
    (project / "obj").mkdir()
    (project / "deps").mkdir()
    args = [*flags, "-Isrc", "-c", "src/main.c", "-o", "obj/main.o"]
    parsed = parse(args, exists=lambda p: True)
    depfile = project / parsed.depfile("obj/main.o")
    assert run(["cc", *args], project).returncode == 0
    expected = depfile.read_text()
    depfile.unlink()
    r = s2s_cc(args, project)
    assert r.returncode == 0, r.stderr
    got = depfile.read_text()
    assert "s2s-cc-" not in got and "src/main.c" in got
    assert make_words(got) == make_words(expected)


def test_depfile_without_o(project):
    args = ["-MD", "-c", "src/util.c"]
    assert run(["cc", *args], project).returncode == 0
    expected = (project / "util.d").read_text()
    (project / "util.d").unlink()
    assert s2s_cc(args, project).returncode == 0
    assert make_words((project / "util.d").read_text()) == make_words(expected)


def test_depfile_and_debug_info_with_awkward_file_names(tmp_path):
    write(tmp_path / "in c" / "h h.h", "#define H 1\n")
    write(tmp_path / "in c" / "my $file#.c", '#include "h h.h"\nint f(void){int s=0;'
                                               'for(int i=0;i<4;i++)s+=i;return s+H;}\n')
    args = ["-g", "-MD", "-c", "in c/my $file#.c", "-o", "x.o"]
    assert run(["cc", *args], tmp_path).returncode == 0
    expected = (tmp_path / "x.d").read_text()
    (tmp_path / "x.d").unlink()
    r = s2s_cc(args, tmp_path)
    assert r.returncode == 0, r.stderr
    assert make_words((tmp_path / "x.d").read_text()) == make_words(expected)
    if shutil.which("readelf"):
        assert "in c/my $file#.c" in run(["readelf", "--debug-dump=info", "x.o"], tmp_path).stdout


def test_quote_includes_resolve_next_to_the_original(tmp_path):
    """`#include "x.h"` finds the header beside the source before one in -iquote/-I or the cwd."""
    write(tmp_path / "sub" / "x.h", "#define WHICH 1\n")
    write(tmp_path / "x.h", "#define WHICH 2\n")
    write(tmp_path / "q" / "x.h", "#define WHICH 3\n")
    write(tmp_path / "sub" / "a.c", '#include <stdio.h>\n#include "x.h"\n'
                                    'int main(void){printf("%d\\n", WHICH);return 0;}\n')
    r = s2s_cc(["-iquote", "q", "-I.", "sub/a.c", "-o", "a"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert run([tmp_path / "a"], tmp_path).stdout == "1\n"


def test_debug_info_names_the_original(project):
    if not shutil.which("readelf"):
        pytest.skip("readelf missing")
    assert s2s_cc(["-g", "-c", "src/util.c", "-o", "u.o"], project).returncode == 0
    info = run(["readelf", "--debug-dump=info", "u.o"], project).stdout
    assert "src/util.c" in info and "s2s-cc-" not in info


def test_launcher_form(project):
    for compiler in ["cc", shutil.which("gcc"), shutil.which("clang-14")]:
        if not compiler:
            continue
        r = run([S2S_CC, compiler, "-O2", "-Isrc", "src/main.c", "src/util.c", "-o", "prog"], project,
                clean_env(S2S_CC="false"))  # the launcher's compiler wins over S2S_CC
        assert r.returncode == 0, r.stderr
        assert run([project / "prog"], project).stdout == "1008 src/main.c\n"
    r = run([S2S_CC, "cc", "--version"], project)
    assert r.returncode == 0 and r.stdout == run(["cc", "--version"], project).stdout


def test_configure_probes_match_the_real_compiler(tmp_path):
    # what CMake and autoconf ask first (autoconf also tries -V -qversion -version, which gcc rejects)
    for args in (["--version"], ["-dumpmachine"], ["-dumpversion"], ["-print-prog-name=ld"],
                 ["-print-search-dirs"], ["-v"], ["-V"], ["-qversion"], ["-version"]):
        mine, real = s2s_cc(args, tmp_path), run(["cc", *args], tmp_path)
        assert (mine.returncode, mine.stdout, mine.stderr) == (real.returncode, real.stdout, real.stderr)


def test_autoconf_style_checks(tmp_path):
    write(tmp_path / "conftest.c", "#ifndef __GNUC__\nchoke me\n#endif\nint main(void){return 0;}\n")
    for args in (["conftest.c", "-o", "conftest"], ["-c", "conftest.c"], ["-g", "-c", "conftest.c"],
                 ["-std=gnu11", "-c", "conftest.c"], ["-E", "conftest.c"], ["-c", "conftest.c", "-Wbogus-flag"]):
        mine, real = s2s_cc(args, tmp_path), run(["cc", *args], tmp_path)
        assert (mine.returncode, mine.stdout, mine.stderr) == (real.returncode, real.stdout, real.stderr), args
    assert run([tmp_path / "conftest"], tmp_path).returncode == 0


def _logging_compiler(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "argv.log"
    fake = write(tmp_path / "bin" / "logcc", f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec cc "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return fake, log


def test_s2s_flags_never_reach_the_compiler(project):
    fake, log = _logging_compiler(project)
    keep = project / "kept"
    r = s2s_cc(["--s2s-report", "--s2s-mode=identity", f"--s2s-keep={keep}", "--s2s-timeout=30",
                "--s2s-target=c", f"--s2s-cc={fake}", "-Isrc", "src/main.c", "src/util.c", "-o", "prog"],
               project)
    assert r.returncode == 0, r.stderr
    assert "s2s-cc: report:" in r.stderr
    r2 = s2s_cc(["--s2s-report", "--version"], project, S2S_CC=str(fake))
    assert r2.returncode == 0
    logged = log.read_text()
    assert logged.count("\n") >= 4 and "--s2s" not in logged


def test_rewritten_files_get_their_loops_aligned(project):
    log = project / "argv.log"
    gcc = write(project / "bin" / "gcc", f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec cc "$@"\n')
    gcc.chmod(gcc.stat().st_mode | stat.S_IXUSR)
    write(project / "src" / "empty.c", "int answer(void) { return 42; }\n")
    write(project / "src" / "sum.c", "double sum(const double *a, int n) {\n  double s = 0;\n"
                                     "  for (int i = 0; i < n; i++)\n    s += a[i];\n  return s;\n}\n")

    def compiled(args, **env):
        log.write_text("")
        r = s2s_cc(["-O2", "-Isrc", "-c", *args], project, S2S_CC=str(gcc), S2S_MODE="identity", **env)
        assert r.returncode == 0, r.stderr
        return log.read_text()

    assert "-falign-loops=64" in compiled(["src/sum.c"])          # (its loops regenerated)
    assert "-falign-loops" not in compiled(["src/empty.c"])        # unchanged: the user's command
    assert "-falign-loops" not in compiled(["src/sum.c"], S2S_ALIGN_LOOPS="0")
    assert "-falign-loops=16" in compiled(["--s2s-align-loops=16", "src/sum.c"])
    mine = compiled(["-falign-loops=32", "src/sum.c"])
    assert "-falign-loops=32" in mine and "-falign-loops=64" not in mine
    r = s2s_cc(["-Isrc", "-c", "src/sum.c"], project, S2S_CC=str(gcc), S2S_ALIGN_LOOPS="48")
    assert r.returncode == 0 and "S2S_ALIGN_LOOPS='48' is not 0 or a power of two" in r.stderr


def test_disable_is_pure_pass_through(project):
    fake, log = _logging_compiler(project)
    args = ["-O2", "-Isrc", "src/main.c", "src/util.c", "-o", "prog"]
    r = s2s_cc(args, project, S2S_CC=str(fake), S2S_DISABLE="1")
    assert r.returncode == 0 and log.read_text() == " ".join(args) + "\n"


def test_keep_generated_sources(project):
    keep = project / "keep"
    r = s2s_cc(["-Isrc", "-c", "src/main.c", "-o", "main.o"], project, S2S_KEEP=str(keep))
    assert r.returncode == 0, r.stderr
    kept = keep / "main.s2s.c"
    assert kept.is_file() and kept.read_text().startswith("#line 1 ")
    assert '"src/main.c"' in kept.read_text().splitlines()[0]


def test_response_file_build(project):
    write(project / "args.rsp", "-Isrc -c src/main.c -o 'main obj.o'\n")
    r = s2s_cc(["@args.rsp"], project)
    assert r.returncode == 0, r.stderr
    assert (project / "main obj.o").is_file()


# ---- fallback ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("fault, reason", [("pipeline", "RuntimeError"), ("timeout", "time-out"),
                                           ("compile", "did not compile")])
def test_fallback_on_injected_fault(tmp_path, fault, reason):
    write(tmp_path / "src" / "one.c", '#include <stdio.h>\nint main(void){double s=0;'
                                      'for(int i=0;i<64;i++)s+=0.5*i;printf("%g\\n",s);return 0;}\n')
    timeout = {"S2S_TIMEOUT": "1"} if fault == "timeout" else {}
    r = s2s_cc(["-O2", "src/one.c", "-o", "prog"], tmp_path, S2S_INJECT_FAULT=fault, **timeout)
    assert r.returncode == 0, r.stderr
    lines = notes(r.stderr)
    assert len(lines) == 1 and reason in lines[0], r.stderr
    assert lines[0].startswith("s2s-cc: note: src/one.c: optimization skipped (")
    assert lines[0].endswith("); compiled unchanged")
    assert run([tmp_path / "prog"], tmp_path).stdout == "1008\n"


def test_a_file_without_loops_is_not_parsed(tmp_path):
    # (the GNU `a ?: b` has no rule in our parser: parsed, it would fall back with a note)
    write(tmp_path / "glue.c", '#include <stdio.h>\nstatic int pick(int a, int b) { return a ?: b; }\n'
                               'int main(int argc, char **argv) { printf("%d\\n", pick(argc - 1, 7)); return 0; }\n')
    r = s2s_cc(["-O2", "glue.c", "-o", "prog"], tmp_path)
    assert r.returncode == 0 and notes(r.stderr) == [], r.stderr
    assert run([tmp_path / "prog"], tmp_path).stdout == "7\n"


def test_fallback_on_injected_fault_in_a_link_of_several_files(project):
    r = s2s_cc(["-Isrc", "src/main.c", "src/util.c", "-o", "prog"], project, S2S_INJECT_FAULT="pipeline")
    # (util.c has no loop: the optimizer, and its fault, never start on it)
    assert r.returncode == 0 and len(notes(r.stderr)) == 1 and "src/main.c" in notes(r.stderr)[0]
    assert run([project / "prog"], project).stdout == "1008 src/main.c\n"


def test_fallback_on_gnu_dialect(tmp_path):
    write(tmp_path / "gnu.c", """\
#include <stdio.h>
int main(void) {
  int base = 10;
  int add(int x) { return x + base; }      /* nested function */
  int s = 0;
  for (int i = 0; i < 5; i++) s += add(i);
  __auto_type t = ({ int q = s; q * 2; });  /* __auto_type, statement expression */
  printf("%d %d\\n", s, t);
  return 0;
}
""")
    r = s2s_cc(["-O2", "gnu.c", "-o", "gnu"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(notes(r.stderr)) <= 1
    assert run([tmp_path / "gnu"], tmp_path).stdout == "60 120\n"


@pytest.mark.parametrize("mode", ["-c", "link"])
def test_syntax_error_gives_the_compilers_own_diagnostic(tmp_path, mode):
    write(tmp_path / "bad.c", "int main(void) {\n  int x = 1\n  return x;\n}\n")
    args = ["-c", "bad.c"] if mode == "-c" else ["bad.c", "-o", "bad"]
    mine, real = s2s_cc(args, tmp_path), run(["cc", *args], tmp_path)
    assert mine.returncode == real.returncode != 0
    assert re.search(r"^bad\.c:3:3: error", mine.stderr, re.MULTILINE)
    assert "s2s-cc" not in mine.stderr
    assert mine.stderr == real.stderr


def test_missing_header_is_the_compilers_error(tmp_path):
    write(tmp_path / "m.c", '#include "nope.h"\nint main(void){return 0;}\n')
    mine, real = s2s_cc(["-c", "m.c"], tmp_path), run(["cc", "-c", "m.c"], tmp_path)
    assert mine.returncode == real.returncode != 0 and mine.stderr == real.stderr


def test_warnings_reach_the_user_once(tmp_path):
    write(tmp_path / "w.c", "int f(int x) { int unused; return x; }\n")
    r = s2s_cc(["-Wall", "-c", "w.c"], tmp_path)
    assert r.returncode == 0 and r.stderr.count("unused variable") == 1
    assert "w.c:1:" in r.stderr


C89_FILTERS_C = """\
#include <stdio.h>
#define H 300
#define W 400
static float img[H][W], tmp[H][W];

static void sharpen(void)
{
  int i, j;
  for (j = 1; j < W - 1; j++)
    for (i = 1; i < H - 1; i++)
      tmp[i][j] = 5.0f * img[i][j] - img[i - 1][j] - img[i + 1][j] - img[i][j - 1] - img[i][j + 1];
}

static void relax(int sweeps)
{
  int s = 0;
  while (s < sweeps) {
    int i, j;
    for (j = 0; j < W; j++)
      for (i = 0; i < H; i++)
        img[i][j] = 0.5f * img[i][j] + 0.25f * tmp[i][j];
    s++;
  }
}

int main(void)
{
  int i, j;
  double sum = 0;
  for (i = 0; i < H; i++)
    for (j = 0; j < W; j++)
      img[i][j] = (float)((i * 7 + j * 13) % 31) / 31.0f;
  sharpen();
  relax(3);
  for (i = 0; i < H; i++)
    for (j = 0; j < W; j++)
      sum += img[i][j] * ((i + j) % 5 + 1);
  printf("%.6f\\n", sum);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_c89_declarations_the_new_loops_replace_stay_quiet(tmp_path, target):
    """``int i, j;`` declared before loops that s2s replaces by loops declaring their own
    variables: -Wall -Werror must not see an unused variable (nor fall back over one)."""
    write(tmp_path / "filters.c", C89_FILTERS_C)
    flags = ["-O2", "-Wall", "-Werror", *(["-fopenmp"] if target == "openmp" else []), "filters.c", "-o"]
    r = s2s_cc([*flags, "opt", "--s2s-report"], tmp_path, **PLUTO, S2S_TARGET=target)
    assert r.returncode == 0 and not notes(r.stderr), r.stderr
    assert re.search(r"sharpen: SCoP .* optimized", r.stderr) and re.search(r"relax: SCoP .* optimized", r.stderr)
    assert run(["cc", *flags, "ref"], tmp_path).returncode == 0
    assert run([tmp_path / "opt"], tmp_path).stdout == run([tmp_path / "ref"], tmp_path).stdout


def test_recursion_guard(tmp_path):
    write(tmp_path / "a.c", "int main(void){return 0;}\n")
    r = run([S2S_CC, "a.c", "-o", "a"], tmp_path, clean_env(S2S_CC=str(S2S_CC)), timeout=60)
    assert r.returncode != 0 and "runs s2s-cc again" in r.stderr


def test_openmp_target_links_separately_compiled_objects(project):
    env = {"S2S_TARGET": "openmp"}
    assert s2s_cc(["-O2", "-c", "-Isrc", "src/main.c"], project, **env).returncode == 0
    assert s2s_cc(["-O2", "-c", "src/util.c"], project, **env).returncode == 0
    r = s2s_cc(["main.o", "util.o", "-o", "prog"], project, **env)
    assert r.returncode == 0, r.stderr
    assert run([project / "prog"], project).stdout == "1008 src/main.c\n"


# ---- CMake -------------------------------------------------------------------------------------------
CMAKE_LISTS = """\
cmake_minimum_required(VERSION 3.16)
project(demo C)
include(CheckCCompilerFlag)
include(CheckIncludeFile)
check_c_compiler_flag(-Wall HAVE_WALL)
check_include_file(stdint.h HAVE_STDINT_H)
add_library(util STATIC src/util.c)
target_include_directories(util PUBLIC src)
add_executable(demo src/main.c)
target_link_libraries(demo util m)
"""


@pytest.mark.skipif(not shutil.which("cmake"), reason="cmake missing")
@pytest.mark.parametrize("style", ["launcher", "CC"])
def test_cmake_project(project, style):
    write(project / "CMakeLists.txt", CMAKE_LISTS)
    keep = project / "keep"
    env = clean_env(S2S_KEEP=str(keep))
    configure = ["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"]
    if style == "launcher":
        configure.append(f"-DCMAKE_C_COMPILER_LAUNCHER={S2S_CC}")
    else:
        env["CC"] = str(S2S_CC)
    r = run(configure, project, env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "HAVE_WALL - Success" in r.stdout and "Looking for stdint.h - found" in r.stdout
    r = run(["cmake", "--build", "build"], project, env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert NOTE not in r.stdout + r.stderr
    assert run([project / "build" / "demo"], project).stdout == f"1008 {project}/src/main.c\n"
    # (util.c has no loop: the compiler reads it as it is, and there is nothing to keep)
    assert (keep / "main.s2s.c").is_file() and not (keep / "util.s2s.c").exists()
    deps = (project / "build" / "CMakeFiles" / "demo.dir" / "src" / "main.c.o.d").read_text()
    assert "s2s-cc-" not in deps and f"{project}/src/main.c" in deps


# ---- make ----------------------------------------------------------------------------------------------
MAKEFILE = """\
CFLAGS = -O2 -Isrc -MMD -MP
OBJS = main.o util.o
prog: $(OBJS)
\t$(CC) $(OBJS) -o $@ -lm
%.o: src/%.c
\t$(CC) $(CFLAGS) -c $< -o $@
-include $(OBJS:.o=.d)
"""


@pytest.mark.skipif(not shutil.which("make"), reason="make missing")
def test_make_with_depfiles_rebuilds_after_a_header_changes(project):
    write(project / "Makefile", MAKEFILE)
    env = clean_env()
    r = run(["make", f"CC={S2S_CC}"], project, env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert run([project / "prog"], project).stdout == "1008 src/main.c\n"
    assert run(["make", f"CC={S2S_CC}", "-q"], project, env).returncode == 0  # up to date
    header = project / "src" / "util.h"
    header.write_text(UTIL_H + "/* changed */\n")
    os.utime(header, (time.time() + 5, time.time() + 5))
    r = run(["make", f"CC={S2S_CC}"], project, env)
    assert r.returncode == 0 and "src/main.c" in r.stdout and "src/util.c" in r.stdout


# ---- OpenMP runtime at link time -----------------------------------------------------------------
# A kernel the optimizer runs in parallel (pluto mode, -fopenmp at compile), in a library file, and
# a main that calls it (nothing of main's own is parallelized).
KERNEL_C = """\
#define N 128
void scale_add(double C[N][N], double A[N][N], double B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
"""
KERNEL_MAIN_C = """\
#include <stdio.h>
#define N 128
void scale_add(double C[N][N], double A[N][N], double B[N][N]);
static double A[N][N], B[N][N], C[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i + j) % 3; B[i][j] = (i * j) % 5; }
  scale_add(C, A, B);
  double s = 0;
  for (int i = 0; i < N; i++) s += C[i][i] - C[i][N - 1 - i];
  printf("%.17g\\n", s);
  return 0;
}
"""
PLUTO = {"S2S_MODE": "pluto", "OMP_NUM_THREADS": "2"}


@pytest.fixture
def omp_objects(tmp_path: Path) -> Path:
    """kernel.o made by s2s-cc with -fopenmp (so with parallel regions), main.o by cc, and the
    program's output when built by cc alone (expected.txt)."""
    write(tmp_path / "kernel.c", KERNEL_C)
    write(tmp_path / "main.c", KERNEL_MAIN_C)
    r = s2s_cc(["-O2", "-fopenmp", "-c", "kernel.c"], tmp_path, **PLUTO)
    assert r.returncode == 0 and not notes(r.stderr), r.stderr
    assert run(["cc", "-O2", "-c", "main.c"], tmp_path).returncode == 0
    assert run(["cc", "-O2", "main.c", "kernel.c", "-o", "ref"], tmp_path).returncode == 0
    write(tmp_path / "expected.txt", run([tmp_path / "ref"], tmp_path).stdout)
    return tmp_path


def test_generated_openmp_code_is_marked_in_the_object(omp_objects):
    from s2s.driver import openmp_runtime

    assert openmp_runtime.carries_marker(str(omp_objects / "kernel.o"))
    assert not openmp_runtime.carries_marker(str(omp_objects / "main.o"))
    if shutil.which("nm"):
        symbols = run(["nm", "kernel.o"], omp_objects).stdout
        assert f"V {openmp_runtime.MARKER_SYMBOL}" in symbols
    # what the test is about: linked without -fopenmp by cc, such an object fails
    r = run(["cc", "main.o", "kernel.o", "-o", "prog"], omp_objects)
    assert r.returncode != 0 and "omp" in r.stderr.lower()


def _runs_as_expected(d: Path, exe: str = "prog") -> None:
    out = run([d / exe], d, clean_env(OMP_NUM_THREADS="2")).stdout
    assert out == (d / "expected.txt").read_text()


@pytest.mark.parametrize("mode", ["pluto", None])  # None: the default mode
def test_link_without_fopenmp_adds_the_runtime(omp_objects, mode):
    env = {"S2S_MODE": mode} if mode else {}
    r = s2s_cc(["main.o", "kernel.o", "-o", "prog", "--s2s-report"], omp_objects, **env)
    assert r.returncode == 0, r.stderr
    assert "linking with -fopenmp: kernel.o holds OpenMP code" in r.stderr
    _runs_as_expected(omp_objects)


def test_link_of_a_static_archive_adds_the_runtime(omp_objects):
    d = omp_objects
    (d / "lib").mkdir()
    assert run(["ar", "rcs", "lib/libk.a", "kernel.o"], d).returncode == 0
    r = s2s_cc(["main.o", "-Llib", "-lk", "-o", "prog"], d)
    assert r.returncode == 0, r.stderr
    _runs_as_expected(d)
    # a thin archive holds no object, but its index names the mark
    assert run(["ar", "rcsT", "libthin.a", "kernel.o"], d).returncode == 0
    r = s2s_cc(["main.o", "libthin.a", "-o", "prog"], d)
    assert r.returncode == 0, r.stderr
    _runs_as_expected(d)


def test_compile_and_link_with_a_marked_object(omp_objects):
    """main.c compiled and linked in one command without -fopenmp, with the marked kernel.o."""
    r = s2s_cc(["-O2", "main.c", "kernel.o", "-o", "prog"], omp_objects, **PLUTO)
    assert r.returncode == 0 and not notes(r.stderr), r.stderr
    _runs_as_expected(omp_objects)


def test_compile_and_link_in_one_command_with_fopenmp(omp_objects):
    r = s2s_cc(["-O2", "-fopenmp", "main.c", "kernel.c", "-o", "prog"], omp_objects, **PLUTO)
    assert r.returncode == 0 and not notes(r.stderr), r.stderr
    _runs_as_expected(omp_objects)


def test_shared_library_depends_on_the_runtime(tmp_path):
    write(tmp_path / "kernel.c", KERNEL_C)
    assert s2s_cc(["-O2", "-fPIC", "-fopenmp", "-c", "kernel.c"], tmp_path, **PLUTO).returncode == 0
    r = s2s_cc(["-shared", "kernel.o", "-o", "libk.so"], tmp_path)
    assert r.returncode == 0, r.stderr
    if shutil.which("readelf"):
        assert "libgomp" in run(["readelf", "-d", "libk.so"], tmp_path).stdout


def test_links_that_need_no_runtime_are_unchanged(omp_objects):
    d = omp_objects
    # the user links a runtime already: nothing added
    r = s2s_cc(["main.o", "kernel.o", "-lgomp", "-o", "prog", "--s2s-report"], d)
    assert r.returncode == 0 and "linking with -fopenmp" not in r.stderr, r.stderr
    # no marked input; a relocatable link keeps the mark in its output instead
    r = s2s_cc(["main.o", "-o", "m", "--s2s-report"], d)
    assert "compiler called unchanged" in r.stderr
    r = s2s_cc(["-r", "kernel.o", "-o", "both.o", "--s2s-report"], d)
    assert r.returncode == 0 and "linking with -fopenmp" not in r.stderr, r.stderr
    assert s2s_cc(["main.o", "both.o", "-o", "prog"], d).returncode == 0
    _runs_as_expected(d)


def test_identity_and_c_target_add_no_mark(tmp_path):
    from s2s.driver import openmp_runtime

    write(tmp_path / "kernel.c", KERNEL_C)
    for args, env in ((["-fopenmp"], {"S2S_MODE": "identity"}), ([], PLUTO)):
        r = s2s_cc(["-O2", *args, "-c", "kernel.c"], tmp_path, **env)
        assert r.returncode == 0, r.stderr
        assert not openmp_runtime.carries_marker(str(tmp_path / "kernel.o")), (args, env)


def test_runtime_use_counted_against_the_users_own():
    from s2s.driver.openmp_runtime import added_runtime_calls

    user = "void f(void) {\n#pragma omp parallel for\nfor (;;) ;\n}\n"
    assert not added_runtime_calls(user, user)
    assert not added_runtime_calls("", "#pragma omp simd\nfor (;;) ;\n")  # no runtime call
    assert added_runtime_calls(user, user + "int t = omp_get_num_threads();\n")
    assert added_runtime_calls("", "  #  pragma omp parallel\n")


@pytest.mark.parametrize("args, runtime", [
    (["a.o", "-fopenmp"], True), (["a.o", "-fopenmp=libomp"], True), (["a.o", "-lgomp"], True),
    (["a.o", "-l", "omp"], True), (["a.o", "-Wl,--as-needed,-liomp5"], True),
    (["a.o", "-fopenmp-simd"], False), (["a.o", "-lm"], False),
])
def test_links_a_runtime(args, runtime):
    from s2s.driver.openmp_runtime import links_a_runtime

    assert links_a_runtime(parse(args, exists=lambda p: True)) is runtime


def test_marker_compiles_under_strict_warnings(tmp_path):
    """The mark must not turn a -Werror build into a fallback, nor trip over the user's macros."""
    from s2s.driver.openmp_runtime import MARKER_SYMBOL, MARKER_TEXT, carries_marker

    write(tmp_path / "m.c", "#define weak 1\n#define used 2\nint f(void);\nint f(void) { return weak + used; }\n"
          + MARKER_TEXT)
    compilers = [["cc", "-Wall", "-Wextra", "-Wredundant-decls", "-Wpedantic", "-std=c99", "-Werror"]]
    if shutil.which("clang-14"):
        compilers.append(["clang-14", "-Weverything", "-Werror"])
    for flags in compilers:
        r = run([*flags, "-c", "m.c", "-o", "m.o"], tmp_path)
        assert r.returncode == 0, (flags, r.stderr)
        assert carries_marker(str(tmp_path / "m.o")) and MARKER_SYMBOL in run(["nm", "m.o"], tmp_path).stdout


def _cmake_at_least(major: int, minor: int) -> bool:
    if not shutil.which("cmake"):
        return False
    m = re.search(r"(\d+)\.(\d+)", subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (major, minor)


@pytest.mark.skipif(not _cmake_at_least(3, 21), reason="CMAKE_C_LINKER_LAUNCHER needs cmake 3.21")
def test_cmake_launchers_with_openmp_only_when_compiling(tmp_path):
    """CMake launches only compiles through CMAKE_C_COMPILER_LAUNCHER; its links go through s2s-cc
    with CMAKE_C_LINKER_LAUNCHER, which then adds the runtime that -fopenmp at compile time needs."""
    write(tmp_path / "kernel.c", KERNEL_C)
    write(tmp_path / "main.c", KERNEL_MAIN_C)
    write(tmp_path / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.21)\nproject(k C)\n"
          "add_library(k STATIC kernel.c)\ntarget_compile_options(k PRIVATE -O2 -fopenmp)\n"
          "add_executable(prog main.c)\ntarget_link_libraries(prog k)\n")
    env = clean_env(**PLUTO)
    r = run(["cmake", "-S", ".", "-B", "build", f"-DCMAKE_C_COMPILER_LAUNCHER={S2S_CC}",
             f"-DCMAKE_C_LINKER_LAUNCHER={S2S_CC}"], tmp_path, env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(["cmake", "--build", "build"], tmp_path, env, timeout=300)
    assert r.returncode == 0 and NOTE not in r.stdout + r.stderr, r.stdout + r.stderr
    ref = run(["cc", "-O2", "main.c", "kernel.c", "-o", "ref"], tmp_path)
    assert ref.returncode == 0
    assert run([tmp_path / "build" / "prog"], tmp_path).stdout == run([tmp_path / "ref"], tmp_path).stdout
