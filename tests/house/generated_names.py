"""Names of external linkage made by a macro at file scope (precision_defines.py).

The CUDA plugin writes a launcher's signature once as a macro of (T, S),

    #define LSK_LU_SMALL_SIG(T, S) cudaError_t lsk_lu_small_##S(int n, ...)

declares both precisions with LSK_DECLARE(LSK_LU_SMALL_SIG) and defines
them with LSK_DEFINE(LSK_LU_SMALL_SIG, lu_small, (n, ...)) (src/cuda/common:
typed.h, k_common.cuh), or writes SIG(double, d) out. Neither use spells
lsk_lu_small_d, so grep finds only its callers. Such names are written out
where they are made:

  - a file that defines one lists it in its opening comment's ' * Defines:'
    line, the form of the precision templates;
  - a use that declares one ends with a comment on its last line that lists
    the names it declares, separated by ", ":
        LSK_DECLARE(LSK_LU_SMALL_SIG); /* lsk_lu_small_d, lsk_lu_small_s */

A use is a call of a function-like macro of the project that begins a
file-scope declaration; it counts when the C preprocessor, given the
#defines of the file and of the project headers it includes, expands it to
a declaration or a definition (not static, not a typedef) of a name the use
does not spell. Nothing here knows LSK_DEFINE or a signature macro by name,
so a new naming macro of that kind is covered too.
"""
import functools
import os
import re
import subprocess

import precision_defines as pd

# Names before a parenthesis that are not a declarator's name.
NOT_NAMES = {"__attribute__", "__declspec", "__launch_bounds__", "alignas", "_Alignas",
             "decltype", "__align__", "noexcept", "throw"}
TOKEN_RE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|' + pd.IDENT + r"|\d[\w.]*|::|\S")


@functools.lru_cache(maxsize=None)
def split_source(path):
    """pd.split_source, once per file (headers are read for every includer)."""
    return pd.split_source(path)


def macro_directives(path, src, seen):
    """The #define/#undef lines in force through path, the project headers it
    includes (by "..." from its folder or from src) inlined where they are
    included, each header once: [(line in path, directive)]."""
    out = []
    for no, d in split_source(path)[0]:
        m = re.match(r'#include "([^"]+)"', d)
        if m:
            inc = pd.resolve(m.group(1), os.path.dirname(path), src)
            if inc and inc not in seen:
                seen.add(inc)
                out += [(no, x) for _, x in macro_directives(inc, src, seen)]
        elif re.match(r"#(define|undef)\b", d):
            out.append((no, d))
    return out


def file_scope_calls(tokens, fmacros):
    """(first line, last line, text) of each call M(...) of a function-like
    macro M that begins a file-scope declaration: at brace depth 0 (an
    'extern "C" {' or 'namespace x {' block does not count) and after ';',
    a closing '}', the start of the file or another such call, an
    'extern "C"' before it left out. A call followed by a body is given an
    empty one, so that its expansion reads as a definition."""
    calls, stack, depth, paren, start, i = [], [], 0, 0, True, 0
    while i < len(tokens):
        no, t = tokens[i]
        after = [x for _, x in tokens[i + 1:i + 3]]
        if start and t == "extern" and after[:1] == ['"C"'] and after[1:] != ["{"]:
            i += 2
            continue
        if start and depth == 0 and paren == 0 and t in fmacros and after[:1] == ["("]:
            j = pd.close_of(tokens, i + 1, strict=True)
            text = " ".join(x for _, x in tokens[i:j + 1])
            if j + 1 < len(tokens) and tokens[j + 1][1] == "{":
                text += " {}"
            calls.append((no, tokens[j][0], text))
            i = j + 1
            continue
        start = False
        if t == "{":
            prev = [x for _, x in tokens[max(0, i - 2):i]]
            open_block = prev == ["extern", '"C"'] or (len(prev) == 2 and prev[0] == "namespace") or \
                prev[-1:] == ["namespace"]
            stack.append(open_block)
            depth += 0 if open_block else 1
            start = open_block
        elif t == "}":
            depth -= 0 if (stack.pop() if stack else False) else 1
            start = depth == 0 and paren == 0
        elif t in "([":
            paren += 1
        elif t in ")]":
            paren -= 1
        elif t == ";" and depth == 0 and paren == 0:
            start = True
        i += 1
    return calls


def named_entities(text):
    """(kind, name) of each declaration ('declaration') and function
    definition ('definition') in an expansion, static ones and typedefs
    left out."""
    toks = TOKEN_RE.findall(text)
    out, i = [], 0
    while i < len(toks):
        head, paren, body = [], 0, False
        while i < len(toks):
            t = toks[i]
            i += 1
            if t == ";" and paren == 0:
                break
            if t == "{" and paren == 0 and head and head[-1] != "=":
                level = 1
                while i < len(toks) and level:
                    level += {"{": 1, "}": -1}.get(toks[i], 0)
                    i += 1
                body = True
                break
            paren += {"(": 1, "[": 1, ")": -1, "]": -1}.get(t, 0)
            head.append(t)
        name, k, depth = None, 0, 0
        while k < len(head):
            t = head[k]
            if depth == 0 and re.match(pd.IDENT + "$", t) and head[k + 1:k + 2] == ["("]:
                if t not in NOT_NAMES:
                    name = t
                    break
            depth += {"(": 1, ")": -1}.get(t, 0)
            k += 1
        if name and not {"static", "typedef"} & set(head[:k]):
            out.append(("definition" if body else "declaration", name))
    return out


def expand_calls(cc, directives, calls, extra=()):
    """Each call's expansion by the C preprocessor after extra and the
    directives before its line."""
    events = [(no, 0, d) for no, d in directives] + \
             [(no, 1, "@@%d@@ %s" % (i, text)) for i, (no, _, text) in enumerate(calls)]
    lines = list(extra) + [text for _, _, text in sorted(events)]
    res = subprocess.run([cc, "-E", "-P", "-x", "c", "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError("%s -E failed:\n%s" % (cc, res.stderr))
    parts = re.split(r"@@(\d+)@@", res.stdout)
    out = {int(parts[k]): parts[k + 1] for k in range(1, len(parts) - 1, 2)}
    return [out.get(i, "") for i in range(len(calls))]


def generated_names(cc, path, src, extra_sets=((),)):
    """([(line, name)] defined, [(first line, last line, [names])] declared):
    the names the file's file-scope macro calls define or declare without
    spelling them. extra_sets: #define lines to expand under, one run each
    (a precision template's SFX/REAL for d and s)."""
    directives = macro_directives(path, src, {path})
    known = [d for _, d in directives] + [d for extra in extra_sets for d in extra]
    calls = file_scope_calls(split_source(path)[1], pd.function_macros(known))
    defined, declared = [], {}
    if not calls:
        return defined, []
    for extra in extra_sets:
        for (first, last, text), exp in zip(calls, expand_calls(cc, directives, calls, extra)):
            for kind, name in named_entities(exp):
                if re.search(r"\b%s\b" % name, text):
                    continue  # spelled where it is made: grep finds it
                if kind == "definition":
                    if (first, name) not in defined:
                        defined.append((first, name))
                elif name not in declared.setdefault((first, last), []):
                    declared[(first, last)].append(name)
    return defined, [(f, l, names) for (f, l), names in sorted(declared.items())]


def trailing_list(path, line):
    """The names of the comment that opens on the given line (1-based) after
    the code, or None; raises ValueError when it is not a list of names."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    col = lines[line - 1].find("/*")
    if col < 0:
        return None
    start = sum(len(x) + 1 for x in lines[:line - 1]) + col
    end = text.find("*/", start)
    body = text[start + 2:end if end >= 0 else len(text)]
    body = re.sub(r"\n\s*\*?", " ", body).strip()
    names = [x.strip() for x in body.split(",")]
    bad = [x for x in names if not pd.NAME_RE.match(x)]
    if bad:
        raise ValueError("not a name: %r (names are separated by ', ')" % bad[0])
    return names


def source_files(src):
    for root, _, files in os.walk(src):
        for fn in sorted(files):
            if fn.endswith((".c", ".h", ".cu", ".cuh", ".cpp", ".cc")):
                yield os.path.join(root, fn)


def check_declarations(path, rel, declared, fail):
    """Each declaring call ends with the comment that lists its names;
    returns how many names such comments list."""
    total = 0
    for first, last, names in declared:
        try:
            listed = trailing_list(path, last)
        except ValueError as e:
            fail("%s:%d: malformed list of declared names: %s" % (rel, last, e))
            continue
        if listed is None:
            fail("%s:%d declares %s; end the line with /* %s */"
                 % (rel, first, ", ".join(names), ", ".join(names)))
            continue
        for name in names:
            if name not in listed:
                fail("%s:%d declares %s but the comment on its line does not name it" % (rel, last, name))
        for name in listed:
            if name not in names:
                fail("%s:%d: the comment names %s, which the call does not declare" % (rel, last, name))
        if len(set(listed)) != len(listed):
            fail("%s:%d: the comment names a name twice" % (rel, last))
        total += len(listed)
    return total


def check(cc, root, src, templates, extra_sets_for, fail):
    """Every file under src other than a precision template (precision_defines.py
    checks those, with what generated_names finds in them): its generated
    definitions against its Defines list, its declaring calls against their
    comments. Returns (files with a list, names listed, names declared)."""
    files = listed_total = declared_total = 0
    for path in source_files(src):
        rel = os.path.relpath(path, root)
        defined, declared = generated_names(cc, path, src, extra_sets_for(path))
        declared_total += check_declarations(path, rel, declared, fail)
        if path in templates:
            continue
        try:
            listed = pd.read_defines(path)
        except ValueError as e:
            fail("%s: malformed Defines list: %s" % (rel, e))
            continue
        if listed is None:
            if defined:
                fail("%s: its opening comment has no ' * Defines:' line; its macro calls define: %s"
                     % (rel, ", ".join(n for _, n in defined)))
            continue
        names = [n for _, n in defined]
        for no, name in defined:
            if name not in listed:
                fail("%s:%d defines %s but its Defines list does not name it" % (rel, no, name))
        for name in listed:
            if name not in names:
                fail("%s lists %s, which no macro call in it defines" % (rel, name))
        files += 1
        listed_total += len(listed)
        print("%-45s %2d names" % (rel, len(listed)))
    return files, listed_total, declared_total


PROBE = """/* A probe.
 * Defines: p_run_d, p_run_s, p_eye_d, p_eye_s */
#include "probe.h"
#define P_DEFINE(SIG, impl, args) \\
    extern "C" SIG(double, d) { return impl<double> args; } \\
    extern "C" SIG(float, s) { return impl<float> args; }
template <typename T> static int run(int n) { return n; }
P_DEFINE(P_RUN_SIG, run, (n))
extern "C" P_EYE_SIG(double, d) { return n; }
extern "C" P_EYE_SIG(float, s)
{
    return n;
}
P_SPELLED(p_spelled)
P_DECLARE(P_HIDDEN_SIG)
"""
PROBE_H = """#define P_DECLARE(SIG) SIG(double, d); SIG(float, s)
#define P_RUN_SIG(T, S) int p_run_##S(int n)
#define P_EYE_SIG(T, S) int p_eye_##S(int n)
#define P_HIDDEN_SIG(T, S) static int p_hidden_##S(int n)
#define P_SPELLED(name) int name(void) { return 0; }
#ifdef __cplusplus
extern "C" {
#endif
P_DECLARE(P_RUN_SIG); /* p_run_d, p_run_s */
P_EYE_SIG(double, d); /* p_eye_d */
P_EYE_SIG(float, s);
#ifdef __cplusplus
}
#endif
"""


def probe_ok(cc, tmpdir):
    """The call finder and the expansion find what they must in a known pair
    of files, and the declaration rule reports the one uncommented call, so
    the test cannot pass by finding nothing."""
    with open(os.path.join(tmpdir, "probe.cu"), "w", encoding="utf-8") as f:
        f.write(PROBE)
    with open(os.path.join(tmpdir, "probe.h"), "w", encoding="utf-8") as f:
        f.write(PROBE_H)
    defined, _ = generated_names(cc, os.path.join(tmpdir, "probe.cu"), tmpdir)
    _, declared = generated_names(cc, os.path.join(tmpdir, "probe.h"), tmpdir)
    failures = []
    check_declarations(os.path.join(tmpdir, "probe.h"), "probe.h", declared, failures.append)
    got = ([n for _, n in defined], [(f, names) for f, _, names in declared], len(failures))
    want = (["p_run_d", "p_run_s", "p_eye_d", "p_eye_s"],
            [(9, ["p_run_d", "p_run_s"]), (10, ["p_eye_d"]), (11, ["p_eye_s"])], 1)
    listed = pd.read_defines(os.path.join(tmpdir, "probe.cu"))
    if got != want or listed != want[0]:
        print("FAILED: the macro-call probe found %s (list %s), not %s" % (got, listed, want))
        return False
    return True
