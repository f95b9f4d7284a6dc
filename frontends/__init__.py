"""Front ends: languages in, s2s.ir out. ``frontends.c`` reads C; an LLVM IR front end comes later."""
