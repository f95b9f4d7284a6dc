"""A gcc/clang command line as a typed model: options, inputs, the stage it stops at.

``parse`` never guesses: an option it does not know makes the whole command a pass-through
(``CommandLine.passthrough`` says why), because an unknown option may take an argument that would
otherwise be read as an input file. ``s2s-cc`` then runs the real compiler on the command unchanged.

The jobs ``s2s-cc`` runs are derived from the model: ``compile_args`` (the flags of one compile job),
``cpp_args`` (the preprocessor flags handed to the pipeline), ``link_args`` (the user's command with
C inputs replaced by objects) and ``rest_args`` (the user's command without the C inputs).
"""
from __future__ import annotations

import enum
import os
from dataclasses import dataclass, replace
from collections.abc import Callable, Mapping, Sequence


class Stage(enum.IntEnum):
    """Where the compiler driver stops, earliest first (the earliest stage asked for wins)."""

    PREPROCESS = 0  # -E, -M, -MM
    SYNTAX = 1  # -fsyntax-only
    ASSEMBLY = 2  # -S
    OBJECT = 3  # -c
    LINK = 4  # none of the above


class Category(enum.Enum):
    """What an option is for; decides which jobs receive it."""

    COMPILE = "compile"  # every compile job and the link job (warnings, -O, -f, -m, -D, -I ...)
    LINK = "link"  # only the link job (-l, -L, -Wl, -Xlinker, -shared ...)
    STAGE = "stage"  # -c -S -E -M -MM -fsyntax-only: each job sets its own
    OUTPUT = "output"  # -o: each job sets its own
    LANGUAGE = "language"  # -x: compile jobs say `-x c` themselves
    DEPENDENCY = "dependency"  # -MD -MMD -MF -MT -MQ -MP -MG: handled per compile job
    PROBE = "probe"  # --version, -print-*, -dumpmachine ...: the command goes to the compiler unchanged


class Passthrough(enum.Enum):
    """Why a command goes to the real compiler unchanged."""

    PROBE = "query of the compiler"
    PREPROCESS_ONLY = "preprocessing only"
    SYNTAX_ONLY = "syntax check only"
    UNKNOWN_OPTION = "unrecognized option"
    MISSING_ARGUMENT = "option without its argument"
    STDIN = "input from stdin"
    NO_C_INPUT = "no input file to optimize (C, LLVM IR; C++ for s2s-c++)"
    MISSING_INPUT = "input file not found"
    MULTIPLE_OUTPUTS = "-o with several inputs or several -o"
    DEPENDENCIES_WHILE_LINKING = "dependency output in a compile-and-link command"
    SAVE_TEMPS = "-save-temps"


@dataclass(frozen=True)
class Option:
    """One option as it appears: one token (``-Ifoo``) or two (``-I foo``)."""

    tokens: tuple[str, ...]
    name: str  # the spelling matched: "-I", "-o", "-O", "-f", "-Wl,", "-MD" ...
    value: str | None
    category: Category
    cpp: bool  # handed to the pipeline's preprocessor


@dataclass(frozen=True)
class InputFile:
    """A positional argument: a source file or a linker input (object, archive, library, anything)."""

    path: str
    language: str  # gcc's -x names ("c", "c++", "assembler", ...), or "linker" for non-sources
    explicit: bool  # the language comes from -x, not from the file name
    x_state: str | None  # the -x in effect here (None or "none": chosen by file name)


Item = Option | InputFile


@dataclass(frozen=True)
class CommandLine:
    """A parsed compiler command: options and inputs in their original order."""

    args: tuple[str, ...]  # the arguments parsed (response files expanded)
    items: tuple[Item, ...]
    stage: Stage
    output: str | None
    passthrough: Passthrough | None = None
    passthrough_detail: str = ""  # the option or file that decided it
    optimized_languages: tuple[str, ...] = ("c", "ir")   # what the driver optimizes (s2s-c++: and C++)

    @property
    def inputs(self) -> list[InputFile]:
        return [item for item in self.items if isinstance(item, InputFile)]

    @property
    def c_inputs(self) -> list[InputFile]:
        return [item for item in self.inputs if item.language == "c"]

    @property
    def optimized_inputs(self) -> list[InputFile]:
        """The inputs the driver optimizes: C files and LLVM modules (``.ll``, ``.bc``); C++
        files too for s2s-c++."""
        return [item for item in self.inputs if item.language in self.optimized_languages]

    def options(self, name: str) -> list[Option]:
        return [item for item in self.items if isinstance(item, Option) and item.name == name]

    def has(self, *names: str) -> bool:
        return any(isinstance(item, Option) and item.name in names for item in self.items)

    def reason(self) -> str:
        if self.passthrough is None:
            return ""
        return f"{self.passthrough.value}: {self.passthrough_detail}" if self.passthrough_detail else self.passthrough.value

    # ---- jobs -------------------------------------------------------------------------------
    def cpp_args(self, source: InputFile | None = None) -> list[str]:
        """The user's preprocessor-relevant flags in order, for the pipeline's ``cc -E``."""
        out = [tok for item in self.items if isinstance(item, Option) and item.cpp for tok in item.tokens]
        if source is not None and source.explicit and not source.path.endswith(".c"):
            out += ["-x", source.language]
        return out

    def compile_args(self, dependencies: bool = True) -> list[str]:
        """Flags of one compile job, in order: everything but inputs, stage, -o, -x and link-only
        flags (and without ``dependencies``, the dependency file's: -MD, -MF ...)."""
        drop = (Category.STAGE, Category.OUTPUT, Category.LANGUAGE, Category.LINK,
                *(() if dependencies else (Category.DEPENDENCY,)))
        return [tok for item in self.items
                if isinstance(item, Option) and item.category not in drop for tok in item.tokens]

    def link_args(self, objects: Mapping[int, str]) -> list[str]:
        """The user's command with the inputs at the given item indices replaced by object files."""
        out: list[str] = []
        for index, item in enumerate(self.items):
            if index not in objects:
                out += item.tokens if isinstance(item, Option) else [item.path]
            elif isinstance(item, InputFile) and item.x_state not in (None, "none"):
                out += ["-x", "none", objects[index], "-x", item.x_state]
            else:
                out.append(objects[index])
        return out

    def rest_args(self, drop: set[int]) -> list[str]:
        """The user's command without the inputs at the given item indices."""
        out: list[str] = []
        for index, item in enumerate(self.items):
            if index not in drop:
                out += item.tokens if isinstance(item, Option) else [item.path]
        return out

    def index_of(self, source: InputFile) -> int:
        return next(i for i, item in enumerate(self.items) if item is source)

    def default_output(self, source: InputFile) -> str:
        """Where gcc writes a -c/-S output without -o: the file name's stem in the current directory."""
        stem = os.path.splitext(os.path.basename(source.path))[0]
        return stem + (".s" if self.stage == Stage.ASSEMBLY else ".o")

    def dependency_args(self) -> list[str]:
        """The flags that ask for a dependency file (-MD, -MMD, -MF, -MT, -MP ...), in order."""
        return [tok for item in self.items
                if isinstance(item, Option) and item.category is Category.DEPENDENCY for tok in item.tokens]

    def depfile(self, output: str) -> str | None:
        """Path of the dependency file a compile job writes (-MD/-MMD), or None."""
        wanted, path = False, None
        for item in self.items:
            if not isinstance(item, Option) or item.category is not Category.DEPENDENCY:
                continue
            if item.name in ("-MD", "-MMD"):
                wanted = True
            elif item.name == "-MF":
                path = item.value
            elif item.name == "-Wp,":  # -Wp,-MD,file (the Linux kernel's spelling)
                parts = (item.value or "").split(",")
                for j, part in enumerate(parts[:-1]):
                    if part in ("-MD", "-MMD"):
                        wanted, path = True, parts[j + 1]
        if not wanted:
            return None
        return path if path is not None else os.path.splitext(output)[0] + ".d"

    def debug_info(self) -> bool:
        flags = [o.tokens[0] for o in self.options("-g")]
        return bool(flags) and flags[-1] not in ("-g0", "-ggdb0", "-gno-record-gcc-switches")


# ---- the option table -----------------------------------------------------------------------
_C, _L, _S, _D, _P = Category.COMPILE, Category.LINK, Category.STAGE, Category.DEPENDENCY, Category.PROBE

# Single-token options: spelling -> (category, handed to the preprocessor).
_FLAGS: dict[str, tuple[Category, bool]] = {
    "-c": (_S, False), "-S": (_S, False), "-E": (_S, False), "-M": (_S, False), "-MM": (_S, False),
    "-fsyntax-only": (_S, False),
    "-MD": (_D, False), "-MMD": (_D, False), "-MP": (_D, False), "-MG": (_D, False),
    "-###": (_P, False), "--version": (_P, False), "--help": (_P, False), "-dumpversion": (_P, False),
    "-dumpfullversion": (_P, False), "-dumpmachine": (_P, False), "-dumpspecs": (_P, False),
    "-dM": (_P, False), "-save-temps": (_C, False),
    "-v": (_C, False), "-w": (_C, False), "-H": (_C, False), "-Q": (_C, False), "-time": (_C, False),
    "-pipe": (_C, False), "-C": (_C, False), "-CC": (_C, False), "-P": (_C, False),
    "-pthread": (_C, True), "-pthreads": (_C, True), "-ansi": (_C, True), "-undef": (_C, True),
    "-trigraphs": (_C, True), "-traditional": (_C, True), "-traditional-cpp": (_C, True),
    "-nostdinc": (_C, True), "-nostdinc++": (_C, True), "-no-canonical-prefixes": (_C, True),
    "-p": (_C, False), "-pg": (_C, False), "--coverage": (_C, False), "-coverage": (_C, False),
    "-integrated-as": (_C, False), "-no-integrated-as": (_C, False), "-Qunused-arguments": (_C, False),
    "-Qn": (_C, False), "-Qy": (_C, False),
    "-shared": (_L, False), "-static": (_L, False), "-static-pie": (_L, False), "-pie": (_L, False),
    "-no-pie": (_L, False), "-rdynamic": (_L, False), "-s": (_L, False), "-r": (_L, False),
    "-symbolic": (_L, False), "-nostdlib": (_L, False), "-nostdlib++": (_L, False),
    "-nostartfiles": (_L, False), "-nodefaultlibs": (_L, False), "-nolibc": (_L, False),
    "-static-libgcc": (_L, False), "-shared-libgcc": (_L, False), "-static-libstdc++": (_L, False),
    "-static-libasan": (_L, False), "-static-libtsan": (_L, False), "-static-libubsan": (_L, False),
}

# Options whose argument is always the next token.
_SEPARATE: dict[str, tuple[Category, bool]] = {
    "-Xlinker": (_L, False), "-Xassembler": (_C, False), "-Xpreprocessor": (_C, True),
    "-Xclang": (_C, False), "-mllvm": (_C, False), "-target": (_C, True), "-arch": (_C, True),
    "-aux-info": (_C, False), "-dumpbase": (_C, False), "-dumpbase-ext": (_C, False),
    "-dumpdir": (_C, False), "-wrapper": (_C, False), "-e": (_L, False), "-u": (_L, False),
    "-z": (_L, False), "-include-pch": (_C, True), "-resource-dir": (_C, True),
}

# Options whose argument is joined (-Ifoo) or the next token (-I foo); longest spelling first.
_JOINED_OR_SEPARATE: list[tuple[str, Category, bool]] = sorted([
    ("-I", _C, True), ("-D", _C, True), ("-U", _C, True), ("-o", Category.OUTPUT, False),
    ("-x", Category.LANGUAGE, False), ("-L", _L, False), ("-l", _L, False), ("-B", _C, True),
    ("-T", _L, False), ("-MF", _D, False), ("-MT", _D, False), ("-MQ", _D, False),
    ("-include", _C, True), ("-imacros", _C, True), ("-isystem", _C, True), ("-iquote", _C, True),
    ("-idirafter", _C, True), ("-iprefix", _C, True), ("-iwithprefix", _C, True),
    ("-iwithprefixbefore", _C, True), ("-imultilib", _C, True), ("-imultiarch", _C, True),
    ("-isysroot", _C, True),
    ("-cxx-isystem", _C, True),
], key=lambda entry: -len(entry[0]))

# Long options written `--opt=value` or `--opt value`.
_EQUALS_OR_SEPARATE: dict[str, tuple[Category, bool]] = {
    "--sysroot": (_C, True), "--param": (_C, False), "--specs": (_C, True),
}

# Single-token options known by their prefix; longest first, checked after everything above.
_PREFIXES: list[tuple[str, Category, bool]] = sorted([
    ("-Wl,", _L, False), ("-Wa,", _C, False), ("-Wp,", _C, True), ("-W", _C, False),
    ("-std=", _C, True), ("-O", _C, True), ("-g", _C, False), ("-f", _C, True), ("-m", _C, True),
    ("-print-", _P, False), ("--print-", _P, False), ("--help=", _P, False), ("-pedantic", _C, False),
    ("-save-temps=", _C, False), ("-specs=", _C, True), ("--target=", _C, True),
    ("--gcc-toolchain=", _C, True), ("-resource-dir=", _C, True), ("-iplugindir=", _C, False),
    ("-d", _C, False), ("-flto", _C, False), ("--rtlib=", _L, False), ("-rtlib=", _L, False),
    ("--ld-path=", _L, False), ("--config=", _C, True), ("-fuse-ld=", _L, False),
], key=lambda entry: -len(entry[0]))

# -f flags that change what `cc -E` prints or that write files: not handed to the pipeline.
_F_NOT_CPP = ("-fdirectives-only", "-fpreprocessed", "-fdebug-cpp", "-fworking-directory", "-fdump-",
              "-fstack-usage", "-fcallgraph-info", "-fsave-optimization-record", "-fopt-info",
              "-fsyntax-only", "-fdiagnostics-", "-fcolor-diagnostics", "-fno-color-diagnostics")

FORTRAN = ("f77", "f77-cpp-input", "f95", "f95-cpp-input")   # gcc's -x names of Fortran
_CXX_EXTENSIONS = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".ii", ".hh", ".H", ".hp",
                   ".hxx", ".hpp", ".HPP", ".h++", ".tcc"}
_EXTENSION_LANGUAGES = {
    ".c": "c", ".i": "cpp-output", ".h": "c-header", ".s": "assembler", ".S": "assembler-with-cpp",
    ".sx": "assembler-with-cpp", ".m": "objective-c", ".mi": "objective-c-cpp-output",
    ".mm": "objective-c++", ".M": "objective-c++", ".cu": "cuda", ".cl": "cl", ".ll": "ir", ".bc": "ir",
    ".f": "f77", ".F": "f77-cpp-input", ".f90": "f95", ".F90": "f95-cpp-input", ".f95": "f95",
    ".F95": "f95-cpp-input", ".f03": "f95", ".F03": "f95-cpp-input", ".f08": "f95", ".F08": "f95-cpp-input",
    ".for": "f77", ".go": "go", ".d": "d",
}


def language_of(path: str, cxx: bool = False) -> str:
    """The language gcc gives a file from its name ("linker" for objects, archives, anything else)."""
    ext = os.path.splitext(path)[1]
    if ext in _CXX_EXTENSIONS or (cxx and ext == ".c"):
        return "c++"
    return _EXTENSION_LANGUAGES.get(ext, "linker")


def _cpp_option(name: str, token: str, cpp: bool) -> bool:
    if not cpp:
        return False
    if name == "-f":
        return not token.startswith(_F_NOT_CPP)
    if name == "-Wp,":
        return not any(part.startswith("-M") for part in token[4:].split(","))
    return True


def _match(args: Sequence[str], i: int) -> tuple[Option | None, int]:
    """The option starting at ``args[i]`` and the index after it; (None, i + 1) if unknown,
    (None, -1) if its argument is missing."""
    tok = args[i]
    if tok in _FLAGS:
        category, cpp = _FLAGS[tok]
        return Option((tok,), tok, None, category, cpp), i + 1
    if tok in _SEPARATE:
        if i + 1 >= len(args):
            return None, -1
        category, cpp = _SEPARATE[tok]
        if tok == "-Xpreprocessor" and args[i + 1].startswith("-M"):
            cpp = False
        return Option((tok, args[i + 1]), tok, args[i + 1], category, cpp), i + 2
    for name, category, cpp in _JOINED_OR_SEPARATE:
        if tok.startswith(name):
            if tok != name:
                return Option((tok,), name, tok[len(name):], category, cpp), i + 1
            if i + 1 >= len(args):
                return None, -1
            return Option((tok, args[i + 1]), name, args[i + 1], category, cpp), i + 2
    for name, (category, cpp) in _EQUALS_OR_SEPARATE.items():
        if tok.startswith(name + "="):
            return Option((tok,), name, tok[len(name) + 1:], category, cpp), i + 1
        if tok == name:
            if i + 1 >= len(args):
                return None, -1
            return Option((tok, args[i + 1]), name, args[i + 1], category, cpp), i + 2
    for name, category, cpp in _PREFIXES:
        if tok.startswith(name):
            return Option((tok,), name, tok[len(name):] or None, category, _cpp_option(name, tok, cpp)), i + 1
    return None, i + 1


def parse(args: Sequence[str], *, cxx: bool = False,
          exists: Callable[[str], bool] = os.path.isfile,
          languages: tuple[str, ...] = ("c", "ir")) -> CommandLine:
    """Parse compiler arguments (without the compiler itself; response files already expanded).

    ``cxx``: the real compiler is a C++ driver (g++, clang++), which compiles ``.c`` files as C++.
    ``languages``: the inputs to optimize (gcc's ``-x`` names; ``ir``: LLVM modules).
    """
    items: list[Item] = []
    stage = Stage.LINK
    x_state: str | None = None
    passthrough: Passthrough | None = None
    detail = ""

    def stop(kind: Passthrough, what: str) -> None:
        nonlocal passthrough, detail
        if passthrough is None:
            passthrough, detail = kind, what

    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "-":
            stop(Passthrough.STDIN, "-")
            items.append(InputFile("-", x_state or "c", True, x_state))
            i += 1
            continue
        if not tok.startswith("-"):
            if x_state not in (None, "none"):
                items.append(InputFile(tok, x_state, True, x_state))
            else:
                items.append(InputFile(tok, language_of(tok, cxx), False, x_state))
            i += 1
            continue
        option, nxt = _match(args, i)
        if nxt == -1:
            stop(Passthrough.MISSING_ARGUMENT, tok)
            break
        if option is None:
            stop(Passthrough.UNKNOWN_OPTION, tok)
            i = nxt
            continue
        if option.name in ("-Wp,", "-Xpreprocessor") and any(
                part.startswith("-M") for part in (option.value or "").split(",")):
            option = replace(option, category=Category.DEPENDENCY, cpp=False)
        items.append(option)
        i = nxt
        if option.category is Category.PROBE:
            stop(Passthrough.PROBE, tok)
        elif option.name == "-x":
            x_state = option.value
        elif option.name in ("-save-temps", "-save-temps="):
            stop(Passthrough.SAVE_TEMPS, tok)
        elif option.category is Category.STAGE:
            stage = min(stage, {"-c": Stage.OBJECT, "-S": Stage.ASSEMBLY,
                                "-fsyntax-only": Stage.SYNTAX}.get(tok, Stage.PREPROCESS))

    cl_items = tuple(items)
    outputs = [o.value for o in cl_items if isinstance(o, Option) and o.name == "-o"]
    inputs = [item for item in cl_items if isinstance(item, InputFile)]
    if stage == Stage.PREPROCESS:
        stop(Passthrough.PREPROCESS_ONLY, "")
    elif stage == Stage.SYNTAX:
        stop(Passthrough.SYNTAX_ONLY, "")
    optimized = [item for item in inputs if item.language in languages]
    if not optimized:
        stop(Passthrough.NO_C_INPUT, "")
    for source in optimized:
        if not exists(source.path):
            stop(Passthrough.MISSING_INPUT, source.path)
    if len(outputs) > 1 or (outputs and stage < Stage.LINK and len(inputs) > 1):
        stop(Passthrough.MULTIPLE_OUTPUTS, "")
    if stage == Stage.LINK and any(isinstance(o, Option) and o.category is Category.DEPENDENCY
                                   for o in cl_items):
        stop(Passthrough.DEPENDENCIES_WHILE_LINKING, "")
    return CommandLine(tuple(args), cl_items, stage, outputs[-1] if outputs else None, passthrough, detail,
                       languages)


# ---- response files ---------------------------------------------------------------------------
def _split_response(text: str) -> list[str]:
    """Split a response file the way libiberty's buildargv does: whitespace separates, quotes
    group, backslash escapes the next character."""
    out: list[str] = []
    cur: list[str] = []
    have = False
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            have = True
            i += 2
            continue
        if quote:
            if ch == quote:
                quote = ""
            else:
                cur.append(ch)
        elif ch in "'\"":
            quote = ch
            have = True
        elif ch.isspace():
            if have:
                out.append("".join(cur))
                cur, have = [], False
        else:
            cur.append(ch)
            have = True
        i += 1
    if have:
        out.append("".join(cur))
    return out


def expand_response_files(args: Sequence[str], depth: int = 0) -> list[str]:
    """Replace each ``@file`` by the arguments it holds (recursively); an unreadable ``@file`` stays
    as it is, which is what gcc does."""
    out: list[str] = []
    for arg in args:
        if arg.startswith("@") and len(arg) > 1 and depth < 16:
            try:
                with open(arg[1:], encoding="utf-8", errors="surrogateescape") as f:
                    text = f.read()
            except OSError:
                out.append(arg)
                continue
            out += expand_response_files(_split_response(text), depth + 1)
        else:
            out.append(arg)
    return out


def quote_response(args: Sequence[str]) -> str:
    """Text of a response file holding ``args`` (read back by gcc, clang and ``_split_response``)."""
    def one(arg: str) -> str:
        if not arg:
            return '""'
        return "".join("\\" + ch if ch in "\\'\" \t\n\r\f\v" else ch for ch in arg)
    return "\n".join(one(arg) for arg in args) + "\n"
