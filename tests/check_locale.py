#!/usr/bin/env python3
"""tests/check_locale.py SRCDIR - checks that the library reads and writes
floating-point numbers only through the C-locale helpers of
src/core/locale.c, so that a host program's setlocale() cannot change them
(test_locale shows what happens otherwise; this check finds the call that a
new reader or writer adds before a user with a German locale does).

Flagged, outside src/core/locale.c:
  - strtod, strtof, strtold, atof and the scanf family (use haze__strtod);
  - a printf-family call whose format converts a floating-point value
    (%e %f %g %a), and any v*printf call, whose format is not visible
    (use haze__fprintf, haze__snprintf, haze__vsnprintf);
  - MPFR's and GMP's string conversions and printf family;
unless the call stands between haze__numeric_begin() and haze__numeric_end().
"""
import pathlib
import re
import sys

PARSE = re.compile(r"(?<![\w.>])(strtod|strtof|strtold|atof|sscanf|fscanf|vsscanf|scanf)\s*\(")
PRINT = re.compile(
    r"(?<![\w.>])(printf|fprintf|sprintf|snprintf|dprintf|asprintf|"
    r"vprintf|vfprintf|vsprintf|vsnprintf|vdprintf|vasprintf)\s*\(")
MP = re.compile(
    r"(?<![\w.>])(mpfr_(?:strtofr|set_str|init_set_str|inp_str|out_str|"
    r"v?as?n?printf|v?fprintf|v?sprintf)|gmp_\w*printf|gmp_\w*scanf)\s*\(")
FLOAT_CONV = re.compile(r"%[-+ #0']*(\d+|\*)?(\.(\d+|\*))?(hh|h|ll|l|L|q|j|z|t)?[eEfFgGaA]")
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def strip_comments(text):
    """Comments become blanks (offsets kept); string literals stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def call_args(text, start):
    """The text of a call's arguments, from its '(' to the matching ')'."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
        i += 1
    return text[start:]


def in_region(text, pos):
    return text.rfind("haze__numeric_begin(", 0, pos) > text.rfind("haze__numeric_end(", 0, pos)


def main():
    src = pathlib.Path(sys.argv[1])
    bad = []
    for path in sorted(list(src.rglob("*.c")) + list(src.rglob("*.cu")) + list(src.rglob("*.h"))):
        if path.as_posix().endswith("core/locale.c"):
            continue
        text = strip_comments(path.read_text(errors="replace"))
        for rx, kind in ((PARSE, "parse"), (PRINT, "print"), (MP, "mp")):
            for m in rx.finditer(text):
                name = m.group(1)
                if kind == "print" and not name.startswith("v"):
                    fmt = "".join(s.group(1) for s in STRING.finditer(call_args(text, m.end() - 1)))
                    if not FLOAT_CONV.search(fmt):
                        continue
                if in_region(text, m.start()):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{path.relative_to(src.parent)}:{line}: {name}() depends on the locale; "
                           "use haze__strtod / haze__fprintf / haze__snprintf, or bracket it with "
                           "haze__numeric_begin/end (src/core/internal.h)")
    for b in bad:
        print(b)
    print(f"{len(bad)} locale-dependent number conversion(s) in {src}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
