"""``s2s demo`` (what ``make demo`` runs): the whole product on a built-in example, end to end.

1. lifts a small C program to the IR and shows it; 2. regenerates it and shows the spliced C;
3. builds it with the real compiler and with ``s2s-cc`` and checks both print the same;
4. runs a short PolyBench evaluation (``s2s bench``) at the SMALL size.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

EXAMPLE = textwrap.dedent("""\
    /* Built-in s2s example: a matrix product and a 2-D Jacobi stencil. */
    #include <stdio.h>
    #define N 96
    #define STEPS 20

    static double A[N][N], B[N][N], C[N][N], G[N][N], H[N][N];

    static void matmul(int n, double alpha, double C[N][N], double A[N][N], double B[N][N]) {
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          for (int k = 0; k < n; k++)
            C[i][j] += alpha * A[i][k] * B[k][j];
    }

    static void jacobi(int steps, int n, double G[N][N], double H[N][N]) {
      for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
          for (int j = 1; j < n - 1; j++)
            H[i][j] = 0.2 * (G[i][j] + G[i][j - 1] + G[i][j + 1] + G[i - 1][j] + G[i + 1][j]);
        for (int i = 1; i < n - 1; i++)
          for (int j = 1; j < n - 1; j++)
            G[i][j] = H[i][j];
      }
    }

    int main(void) {
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
          A[i][j] = (double)((i * j + 1) % N) / N;
          B[i][j] = (double)((i + 2 * j) % N) / N;
          G[i][j] = (double)(i * (j + 3) % 17) / 17.0;
        }
      matmul(N, 1.5, C, A, B);
      jacobi(STEPS, N, G, H);
      double c = 0, g = 0;
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) { c += C[i][j]; g += G[i][j]; }
      printf("checksum C = %.17g\\nchecksum G = %.17g\\n", c, g);
      return 0;
    }
""")


def _section(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 72 - len(title)), flush=True)


def run_demo(bench: bool = True) -> int:
    from frontends.c import lift_c_file
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file
    from s2s.ir import dump

    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="s2s-demo-") as tmp:
        src = Path(tmp) / "example.c"
        src.write_text(EXAMPLE)

        _section("1. the example lifted into the IR (s2s opt --emit-ir)")
        unit, _ = lift_c_file(str(src))
        print(dump(unit.function("matmul")), end="")

        _section("2. regenerated from the IR and spliced into the original file")
        result = optimize_c_file(src, [], PipelineOptions())
        print("\n".join(result.report))
        print(result.source[result.source.index("static void matmul"):result.source.index("static void jacobi")])

        _section("3. built with cc and with s2s-cc; same output?")
        outputs = {}
        for name, cmd in (("cc", ["cc"]), ("s2s-cc", [str(bindir / "s2s-cc")])):
            exe = Path(tmp) / f"example-{name}"
            subprocess.run([*cmd, "-O2", str(src), "-o", str(exe)], check=True)
            outputs[name] = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
            print(f"{name:>7}: {outputs[name].strip().replace(chr(10), ' | ')}")
        if outputs["cc"] != outputs["s2s-cc"]:
            print("MISMATCH: s2s-cc changed what the program computes", file=sys.stderr)
            return 1
        print("identical.")

    if not bench:
        return 0
    _section("4. PolyBench evaluation: s2s bench --dataset SMALL (a few kernels)")
    cmd = [str(bindir / "s2s"), "bench", "--dataset", "SMALL", "--repeat", "3",
           "--kernels", "gemm,atax,jacobi-2d,seidel-2d,lu,floyd-warshall"]
    print("$ s2s " + " ".join(cmd[1:]), flush=True)
    return subprocess.run(cmd, env=os.environ.copy()).returncode
