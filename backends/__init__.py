"""Back ends: they read s2s.ir and emit source. ``backends.c`` emits C; OpenMP, Highway and CUDA
back ends subclass its printer."""
