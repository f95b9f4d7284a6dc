"""The LLVM IR front end: functions of a ``.ll``/``.bc`` module as C that the C front end lifts."""
