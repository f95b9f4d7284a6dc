"""Settings shared by all tests.

The optimizer keeps the user's loops where a SCoP does too little work for optimized code to
pay for itself (``s2s.transforms.work_guard``): at MINI sizes and in the small programs of the
tests that would be every SCoP. Tests are about what the optimizer makes of a loop nest, so they
run without those thresholds; ``tests/test_work_guard.py`` sets them where it tests them.

``s2s tune`` stores what it finds in the recipe database: in tests, one of the test's own, never
the user's. So does ``s2s-cc``'s cache of optimized files: each test has its own, empty.
"""
import pytest


@pytest.fixture(autouse=True)
def _no_work_thresholds(monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,"
                                              "parallel_start=0,parallel_wake=0,parallel_wavefront=0")


@pytest.fixture(autouse=True)
def _own_recipe_database(monkeypatch, tmp_path):
    monkeypatch.setenv("S2S_RECIPE_DB", str(tmp_path / "recipes.sqlite"))


@pytest.fixture(autouse=True)
def _own_compile_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("S2S_CACHE", str(tmp_path / "s2s-cc-cache"))


@pytest.fixture(autouse=True)
def _no_recipe_server(monkeypatch):
    """No test asks a recipe server the user's environment names."""
    for name in ("S2S_RECIPE_SERVER", "S2S_TOKEN", "S2S_RECIPE_SERVER_CA", "S2S_RECIPE_SERVER_DB",
                 "S2S_RECIPE_SERVER_CACHE"):
        monkeypatch.delenv(name, raising=False)
