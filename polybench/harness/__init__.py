"""``s2s bench`` / ``python -m polybench``: the PolyBench/C evaluation harness.

For each selected kernel and configuration it builds the kernel, verifies its output against the
baseline build (full-precision array dumps), times it, and reports a table, CSV, JSON and a chart.

Modules, one idea each:

* ``suite``        -- which kernels exist (our suite through ``polybench.registry``, or an external
                      PolyBench/C 4.2.1 checkout walked on disk) and their sizes / flop counts;
* ``configs``      -- the configuration registry: name -> how to build (baseline, identity, polly, ...);
* ``build``        -- compiler invocations (one per binary), with logs and time-outs;
* ``run``          -- running a binary with a time-out, parsing the program's own printed time;
* ``verify``       -- parsing ``POLYBENCH_DUMP_ARRAYS`` output and comparing dumps;
* ``bench``        -- the orchestration: parallel build+verify, then timed runs one at a time;
* ``machine_info`` -- CPU, caches, memory, compiler versions, s2s version and git commit;
* ``report``       -- the terminal table, CSV and JSON;
* ``plot``         -- the speedup bar chart (matplotlib, Agg);
* ``roofline``     -- GFLOP/s as % of the machine's peak and the ``--roofline`` plot (``s2s.perf``);
* ``cli``          -- argument parsing, ``main(argv=None) -> int``.
"""
