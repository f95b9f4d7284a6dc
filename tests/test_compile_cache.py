"""s2s-cc's cache of optimized files: a rebuild without changes does not run the optimizer again
(nor the compiler on its text), any change that could change its output does, and many processes
share one cache safely."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from c_build import without_settings
from s2s.driver import cc as cc_mod
from s2s.driver import compile_cache, pipeline
from s2s.driver.pipeline import PipelineResult

S2S_CC = Path(sys.executable).with_name("s2s-cc")

KERNEL = """#include "scale.h"
void kernel(int n, double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = SCALE * A[i][j];   /* a transpose walks B by columns */
}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A file with a SCoP and a header, a cache of its own, and a count of optimize steps run in
    this process (``--s2s-timeout=0`` keeps the step here)."""
    (tmp_path / "scale.h").write_text("#define SCALE 2.0\n")
    (tmp_path / "k.c").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("S2S_CACHE", str(tmp_path / "cache"))
    runs: list[str] = []
    real = pipeline.optimize_c_file

    def counting(path, cpp_args, options, preprocessed=None):
        runs.append(str(path))
        return real(path, cpp_args, options, preprocessed=preprocessed)

    monkeypatch.setattr(pipeline, "optimize_c_file", counting)
    return tmp_path, runs


def build(*flags: str, output: str = "k.o") -> int:
    return cc_mod.main(["--s2s-cc=cc", "--s2s-timeout=0", *flags, "-O2", "-c", "k.c", "-o", output])


def test_rebuild_without_changes_reuses_the_optimized_file(project):
    tmp, runs = project
    assert build(output="a.o") == 0 and runs == ["k.c"]
    assert build(output="b.o") == 0 and runs == ["k.c"]
    assert (tmp / "a.o").read_bytes() == (tmp / "b.o").read_bytes()
    entries = list((tmp / "cache").rglob("*.json"))
    assert len(entries) == 1
    assert json.loads(entries[0].read_text())["changed"] is True
    assert len(list((tmp / "cache").rglob("*" + compile_cache.OBJECT_SUFFIX))) == 2   # a.o's and b.o's


def test_a_rebuild_without_changes_runs_no_compiler(project, monkeypatch, capfd):
    """As ccache: the compile of the optimized text is kept (object, dependency file, warnings),
    and a rebuild restores it."""
    tmp, runs = project
    (tmp / "k.c").write_text(KERNEL + "int unused_warning(int x) { int y; return x; }\n")
    compiles: list[list[str]] = []
    real = cc_mod._Build._run

    def counting(self, command, capture):
        if "-c" in command:
            compiles.append(command)
        return real(self, command, capture)

    monkeypatch.setattr(cc_mod._Build, "_run", counting)
    flags = ("-Wall", "-MMD")
    assert build(*flags) == 0 and len(compiles) == 1
    first_err, depfile = capfd.readouterr().err, (tmp / "k.d").read_text()
    assert "unused variable" in first_err and "k.c" in depfile and "scale.h" in depfile
    (tmp / "k.o").unlink()
    (tmp / "k.d").unlink()
    assert build(*flags) == 0 and len(compiles) == 1 and runs == ["k.c"]
    assert capfd.readouterr().err == first_err
    assert (tmp / "k.d").read_text() == depfile and (tmp / "k.o").stat().st_size > 0
    # a compile that writes files of its own besides the object runs again
    assert build(*flags, "-fstack-usage") == 0 and len(compiles) == 2
    assert build(*flags, "-fstack-usage") == 0 and len(compiles) == 3 and (tmp / "k.su").is_file()


@pytest.mark.parametrize("change", ["header", "comment", "define", "option", "environment", "s2s code"])
def test_anything_that_can_change_the_output_is_a_miss(project, monkeypatch, change):
    tmp, runs = project
    assert build() == 0 and len(runs) == 1
    flags: list[str] = []
    if change == "header":
        (tmp / "scale.h").write_text("#define SCALE 3.0\n")
    elif change == "comment":     # the preprocessed text stays, the generated text does not
        (tmp / "k.c").write_text(KERNEL.replace("a transpose", "the transpose"))
    elif change == "define":
        flags = ["-DUNUSED=1"]
    elif change == "option":
        flags = ["--s2s-fuse=no"]
    elif change == "environment":
        monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=1")
    else:
        monkeypatch.setattr(compile_cache, "_code_stamp", compile_cache.code_stamp() + "\nedited")
    assert build(*flags) == 0 and len(runs) == 2
    assert build(*flags) == 0 and len(runs) == 2
    if change == "comment":
        kept = tmp / "kept"
        assert build("--s2s-keep", str(kept)) == 0 and len(runs) == 2
        assert "the transpose" in next(kept.iterdir()).read_text()


def test_a_rebuild_without_changes_runs_no_preprocessor(project, monkeypatch):
    """The manifest (include_manifest.py) names the optimize step's key while every file the
    preprocessor read is as it was."""
    tmp, runs = project
    from frontends.c import preprocess as preprocess_mod

    calls: list[str] = []
    real = preprocess_mod.preprocess

    def counting(path, *args, **kwargs):
        calls.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(preprocess_mod, "preprocess", counting)
    assert build() == 0 and len(calls) == 1 and len(runs) == 1
    assert build() == 0 and len(calls) == 1 and len(runs) == 1
    (manifest,) = (tmp / "cache").rglob("*.manifest")
    assert any(path.endswith("scale.h") for path, _ in json.loads(manifest.read_text())["files"])


def test_the_files_of_a_build_share_one_include_search_list(project, monkeypatch):
    """``cc -E -v`` runs once for a compiler, its flags and directory, not once a file."""
    tmp, runs = project
    from s2s.driver import include_manifest

    listings: list[tuple[str, ...]] = []
    real = include_manifest.search_directories

    def counting(compiler, cpp_args):
        listings.append(tuple(cpp_args))
        return real(compiler, cpp_args)

    monkeypatch.setattr(include_manifest, "search_directories", counting)
    (tmp / "k2.c").write_text(KERNEL.replace("kernel(", "kernel2("))
    assert build() == 0
    assert cc_mod.main(["--s2s-cc=cc", "--s2s-timeout=0", "-O2", "-c", "k2.c", "-o", "k2.o"]) == 0
    assert len(runs) == 2 and len(listings) == 1
    (tmp / "b").mkdir()
    (tmp / "scale.h").rename(tmp / "b" / "scale.h")
    assert build("-Iextra", "-Ib") == 0 and len(listings) == 2   # (other flags: a list of their own)
    assert build("-Iextra", "-Ib") == 0 and len(runs) == 3 and len(listings) == 2
    (tmp / "extra").mkdir()   # (named but missing until now: searched first from now on)
    (tmp / "extra" / "scale.h").write_text("#define SCALE 3.0\n")
    assert build("-Iextra", "-Ib") == 0 and len(runs) == 4 and len(listings) == 2


def test_a_header_that_would_now_be_found_first_is_a_miss(project):
    """``-Ia -Ib`` with ``scale.h`` in b: one added to a is what the preprocessor reads next."""
    tmp, runs = project
    (tmp / "scale.h").unlink()
    for d in ("a", "b"):
        (tmp / d).mkdir()
    (tmp / "b" / "scale.h").write_text("#define SCALE 2.0\n")
    assert build("-Ia", "-Ib") == 0 and build("-Ia", "-Ib") == 0 and len(runs) == 1
    (tmp / "a" / "scale.h").write_text("#define SCALE 5.0\n")
    assert build("-Ia", "-Ib") == 0 and len(runs) == 2
    (tmp / "a" / "other.o").write_text("")   # (not a name a header could have)
    assert build("-Ia", "-Ib") == 0 and len(runs) == 2


def test_a_header_added_in_a_subdirectory_searched_first_is_a_miss(project):
    """``#include "sub/scale.h"`` under ``-Ia -Ib``, read from b/sub: a/sub made with one in it."""
    tmp, runs = project
    (tmp / "k.c").write_text(KERNEL.replace('"scale.h"', '"sub/scale.h"'))
    (tmp / "scale.h").unlink()
    (tmp / "b" / "sub").mkdir(parents=True)
    (tmp / "b" / "sub" / "scale.h").write_text("#define SCALE 2.0\n")
    (tmp / "a").mkdir()
    assert build("-Ia", "-Ib") == 0 and build("-Ia", "-Ib") == 0 and len(runs) == 1
    (tmp / "a" / "sub").mkdir()
    (tmp / "a" / "sub" / "scale.h").write_text("#define SCALE 5.0\n")
    assert build("-Ia", "-Ib") == 0 and len(runs) == 2


def test_files_that_read_the_clock_get_no_manifest(project):
    tmp, runs = project
    (tmp / "scale.h").write_text('#define SCALE 2.0\nstatic const char *built = __DATE__;\n')
    assert build() == 0 and build() == 0 and len(runs) == 1
    assert not list((tmp / "cache").rglob("*.manifest"))


def test_cache_off_always_optimizes(project):
    _tmp, runs = project
    assert build("--s2s-cache=off") == 0 and build("--s2s-cache=off") == 0
    assert len(runs) == 2


def test_a_damaged_entry_is_a_miss_and_is_replaced(project):
    tmp, runs = project
    assert build() == 0
    (entry,) = (tmp / "cache").rglob("*.json")
    entry.write_text('{"format": 1, "source": "int broken')
    assert build() == 0 and len(runs) == 2
    assert json.loads(entry.read_text())["changed"] is True
    assert build() == 0 and len(runs) == 2


def test_report_says_where_the_result_came_from(project, capsys):
    _tmp, runs = project
    assert build("--s2s-report") == 0
    first = capsys.readouterr().err
    assert build("--s2s-report") == 0 and len(runs) == 1
    again = capsys.readouterr().err
    assert "SCoP at" in first and "cache" not in first
    assert again.startswith(first) and "k.c: what the optimize step made of it before (cache" in again


def test_recipes_replayed_are_part_of_the_key(project):
    tmp, runs = project
    recipes = tmp / "r.json"
    subprocess.run([str(S2S_CC.with_name("s2s")), "opt", "k.c", "-o", "opt.c", "--emit-recipes", str(recipes)],
                   check=True, capture_output=True, env=without_settings())
    n = len(runs)
    assert build(f"--s2s-recipes={recipes}") == 0 and len(runs) == n + 1
    assert build(f"--s2s-recipes={recipes}") == 0 and len(runs) == n + 1
    data = json.loads(recipes.read_text())
    data["recipes"][0]["steps"] = [{"kind": "keep-original", "target": "scop", "params": {}}]
    recipes.write_text(json.dumps(data))
    assert build(f"--s2s-recipes={recipes}") == 0 and len(runs) == n + 2


def test_files_that_do_not_preprocess_are_not_cached(project):
    tmp, runs = project
    (tmp / "scale.h").unlink()
    assert build() != 0
    assert not list((tmp / "cache").rglob("*.json"))


def test_many_processes_share_one_cache(tmp_path):
    """``make -j``: eight s2s-cc processes on the same file at once, then eight on the warm cache:
    every one builds the same object, and the cache holds one whole entry."""
    (tmp_path / "scale.h").write_text("#define SCALE 2.0\n")
    (tmp_path / "k.c").write_text(KERNEL)
    env = without_settings()
    env.update(S2S_CC="cc", S2S_CACHE=str(tmp_path / "cache"))

    def one(n: int) -> bytes:
        out = tmp_path / f"k{n}.o"
        r = subprocess.run([str(S2S_CC), "-O2", "-c", "k.c", "-o", str(out)], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "note" not in r.stderr, r.stderr
        return out.read_bytes()

    with ThreadPoolExecutor(8) as pool:
        objects = set(pool.map(one, range(16)))
    assert len(objects) == 1
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    optimized = [p for p in files if p.suffix == ".json"]
    assert len(optimized) == 1 and json.loads(optimized[0].read_text())["changed"] is True
    # a compile per output; one optimize step, its manifest and the include search list
    assert sorted(p.suffix for p in files) == [".compile"] * 16 + [".json", ".manifest", ".search"]


def test_trim_removes_the_least_recently_used_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(compile_cache, "TRIM_CHANCE", 0.0)   # (the stores' own chance of a trim: none here)
    cache = compile_cache.CompileCache(tmp_path, max_bytes=10_000)
    result = PipelineResult(source="x" * 2_000, changed=True)
    keys = [f"{n:02d}" + "0" * 62 for n in range(8)]
    for n, key in enumerate(keys):
        cache.store(key, result)
        path = cache._path(key)
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
    assert cache.load(keys[0]) is not None      # a hit makes the oldest the most recent
    cache.trim()
    kept = [key for key in keys if cache._path(key).is_file()]
    assert keys[0] in kept and keys[1] not in kept and keys[-1] in kept
    assert sum(cache._path(k).stat().st_size for k in kept) <= 8_000


@pytest.mark.parametrize("text,size", [("512M", 512 << 20), ("2G", 2 << 30), ("64k", 64 << 10),
                                       ("1.5GiB", int(1.5 * (1 << 30))), ("4096", 4096)])
def test_sizes(text, size):
    assert compile_cache.parse_size(text) == size


def test_a_bad_size_is_a_warning_and_the_default():
    cfg = cc_mod.settings_mod.resolve([("cache-size", "lots")], {})
    assert cfg.cache_size == compile_cache.DEFAULT_MAX_BYTES
    assert any("cache-size" in w for w in cfg.warnings)


def test_cache_directory_settings(tmp_path):
    resolve = cc_mod.settings_mod.resolve
    assert resolve([], {"S2S_CACHE_DIR": str(tmp_path)}).cache_dir == str(tmp_path / "cc")
    assert resolve([], {"XDG_CACHE_HOME": str(tmp_path)}).cache_dir == str(tmp_path / "s2s" / "cc")
    assert resolve([("cache", "off")], {"S2S_CACHE": str(tmp_path)}).cache_dir is None
    assert resolve([], {"S2S_CACHE": str(tmp_path / "c")}).cache_dir == str(tmp_path / "c")
