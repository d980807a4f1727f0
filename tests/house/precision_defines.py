#!/usr/bin/env python3
"""Every external name a precision template defines is listed in its header.

A precision template is a *_impl.h file written once over REAL and SFX
(src/common/real_macros.h) and instantiated for double (SFX d) and float
(SFX s) by src/common/instantiate_real.h, or included by such a file. Its
functions are defined as FN(ls_cpu_getrf) or through a naming macro of its
own (LSA_API(getrf) -> ls_dgetrf), so the names the linker sees appear
nowhere in the source. Each template's opening comment therefore carries
one list in this form (docs/architecture.md, "Precision, written once"):

     * Defines: ls_cpu_getrf_d, ls_cpu_getrf_s, ls_cpu_getrs_d,
     *   ls_cpu_getrs_s

names separated by ", ", continued on lines that start " *   " (three
spaces), ending at the first other line or at the comment's close; a
template that defines nothing of external linkage says " * Defines: none",
optionally followed by a remark in parentheses.

This test finds every file-scope definition in each template that is not
static (functions with a body, and objects), expands its name with the C
preprocessor for SFX = d and SFX = s over the macros in force at that point
(real_macros.h, the instantiating file's and the template's own #defines),
and fails where a defined name is missing from the list, where a listed
name is not defined (stale), or where a template has no list.

Names made by a macro call at file scope (the CUDA launchers of
LSK_DEFINE(SIG, ...), the declarations of LSK_DECLARE(SIG)) are held to the
same rule in every file under src by generated_names.py: a defining file
lists them in its ' * Defines:' line, a declaring call names them in a
comment on its last line.

Usage: precision_defines.py SOURCE_DIR [C_COMPILER]
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
import generated_names  # noqa: E402

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DEFINES_RE = re.compile(r"^ \* Defines: (.*)$")
CONT_RE = re.compile(r"^ \*   (\S.*)$")
NONE_RE = re.compile(r"^none( \(.*\))?$")
NAME_RE = re.compile(r"^" + IDENT + r"$")
PRECISIONS = (("d", "double"), ("s", "float"))


LEXEMES_RE = re.compile(r'/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?', re.S)


def strip_comments(text):
    """Comments blanked, newlines kept, so that line numbers still match;
    string and character literals are kept whole (one regular expression
    finds whichever of the four starts first)."""
    def blank(m):
        s = m.group(0)
        return re.sub(r"[^\n]", " ", s) if s.startswith(("/*", "//")) else s
    return LEXEMES_RE.sub(blank, text)


def logical_lines(text):
    """(first line number, text) of each line, backslash continuations joined."""
    lines, buf, start = [], [], None
    for no, line in enumerate(text.split("\n"), 1):
        if start is None:
            start = no
        if line.endswith("\\"):
            buf.append(line[:-1])
            continue
        buf.append(line)
        lines.append((start, " ".join(buf)))
        buf, start = [], None
    return lines


def split_source(path):
    """The file's #define/#undef directives and #include lines, and its code
    as tokens: ([(line, directive)], [(line, token)])."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    directives, tokens = [], []
    tok_re = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|' + IDENT + r"|\d[\w.]*|\S")
    for no, line in logical_lines(text):
        s = line.strip()
        if s.startswith("#"):
            directives.append((no, re.sub(r"^#\s*", "#", s)))
            continue
        tokens.extend((no, t) for t in tok_re.findall(line))
    return directives, tokens


def chunks(tokens):
    """File-scope declarations: lists of (line, token) up to a ';' at depth 0
    or through a function body's closing brace."""
    out, cur, depth, i = [], [], 0, 0
    while i < len(tokens):
        no, t = tokens[i]
        cur.append((no, t))
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif t == "{" and depth == 0:
            # A body follows a parameter list; 'struct M(x) {' is a tag and
            # '= (T){' a compound literal.
            top = [x for _, x in groups(cur[:-1])]
            body = len(cur) >= 2 and cur[-2][1] == ")" and "=" not in top and \
                not (len(top) >= 3 and top[-3] in ("struct", "union", "enum"))
            level, i = 1, i + 1
            while i < len(tokens) and level:
                cur.append(tokens[i])
                level += {"{": 1, "}": -1}.get(tokens[i][1], 0)
                i += 1
            if body:  # a function definition ends with its body
                out.append(("function", cur))
                cur = []
            continue
        elif t == ";" and depth == 0:
            out.append(("declaration", cur))
            cur = []
        i += 1
    if any(t for _, t in cur):
        out.append(("unterminated", cur))
    return out


def groups(chunk):
    """The chunk's tokens at depth 0 as (index, token), a bracketed group
    standing as its opening token."""
    out, depth = [], 0
    for k, (_, t) in enumerate(chunk):
        if t in "([{":
            if depth == 0:
                out.append((k, t))
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif depth == 0:
            out.append((k, t))
    return out


def declarator_name(chunk, top, macros):
    """The name of one declarator, given its depth-0 tokens top: an
    identifier, or a naming macro's call M(args) as text; None for a
    prototype or a declarator with no name."""
    while top and top[-1][1] == "[":  # array bounds
        top = top[:-1]
    if not top:
        return None
    k, t = top[-1]
    if re.match(IDENT + "$", t):
        return None if t in ("struct", "union", "enum") or t in macros else t
    if t != "(" or len(top) < 2:
        return None
    if top[-2][1] in macros:  # M(args): the name is made by a macro
        return "".join(x for _, x in chunk[top[-2][0]:close_of(chunk, k) + 1])
    return None


def close_of(chunk, k, strict=False):
    """The index of the ')' that closes the '(' at k; unclosed, the last
    index, or with strict a ValueError naming the line."""
    level = 0
    for i in range(k, len(chunk)):
        level += {"(": 1, ")": -1}.get(chunk[i][1], 0)
        if level == 0:
            return i
    if strict:
        raise ValueError("line %d: unbalanced parentheses" % chunk[k][0])
    return len(chunk) - 1


def external_definitions(tokens, macros):
    """(line, name expression) of every file-scope definition of external
    linkage: functions with a body, and objects; not static, typedef or
    extern, not prototypes. macros: the function-like macros in force, so
    that FN(x) is told from a parameter list."""
    found = []
    for kind, chunk in chunks(tokens):
        if kind == "unterminated":
            raise ValueError("line %d: a declaration with no ';' or body at the end" % chunk[0][0])
        top = groups(chunk)
        words = {t for _, t in top}
        if not top or top[0][1] in ("_Static_assert", "static_assert"):
            continue
        if {"static", "typedef", "extern"} & words:
            continue
        line = chunk[0][0]
        if kind == "function":
            # Drop the body and the parameter list before it: what is left
            # ends with the name.
            body = [i for i, (_, t) in enumerate(top) if t == "{"][-1]
            name = declarator_name(chunk, top[:body - 1], macros)
            if name:
                found.append((line, name))
            continue
        # Objects: one declarator per ',' at depth 0, each up to its '='.
        segment = []
        for item in top + [(len(chunk), ",")]:
            if item[1] not in (",", ";"):
                segment.append(item)
                continue
            eq = [i for i, (_, t) in enumerate(segment) if t == "="]
            decl = segment[:eq[0]] if eq else segment
            name = declarator_name(chunk, decl, macros)
            if name:
                found.append((line, name))
            segment = []
    return found


def function_macros(directives):
    """The names of the function-like macros the directives define."""
    return {m.group(1) for m in (re.match(r"#define (" + IDENT + r")\(", d) for d in directives) if m}


def directives_until(path, stop_line=None):
    """The #define and #undef lines of path before stop_line."""
    directives, _ = split_source(path)
    return [d for no, d in directives
            if (stop_line is None or no < stop_line) and re.match(r"#(define|undef)\b", d)]


def expand(cc, prelude, header_dirs, names, sfx, real):
    """The names (text such as FN(getrf)) as the C preprocessor expands them
    after prelude and the template's own directives, for one precision."""
    lines = ["#define SFX " + sfx, "#define REAL " + real] + prelude
    # header_dirs: [(line, directive)] of the template; names: [(line, expr)].
    events = [(no, 0, d) for no, d in header_dirs if re.match(r"#(define|undef)\b", d)] + \
             [(no, 1, "@@%d@@ %s" % (i, e)) for i, (no, e) in enumerate(names)]
    lines += [text for _, _, text in sorted(events)]
    res = subprocess.run([cc, "-E", "-P", "-x", "c", "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError("%s -E failed:\n%s" % (cc, res.stderr))
    out = {}
    for m in re.finditer(r"@@(\d+)@@\s*(.*)", res.stdout):
        out[int(m.group(1))] = m.group(2).strip()
    return [out.get(i, "") for i in range(len(names))]


def read_defines(path):
    """The names of the template's Defines list, or None without one; raises
    ValueError on a malformed list."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.match(r"\s*/\*.*?\*/", text, re.S)
    if not m:
        return None
    lines = m.group(0).split("\n")
    starts = [k for k, ln in enumerate(lines) if DEFINES_RE.match(ln)]
    if not starts:
        return None
    if len(starts) > 1:
        raise ValueError("more than one ' * Defines:' line")
    k = starts[0]
    parts = [DEFINES_RE.match(lines[k]).group(1)]
    for ln in lines[k + 1:]:
        c = CONT_RE.match(ln)
        if not c:
            break
        parts.append(c.group(1))
    body = " ".join(parts)
    body = re.sub(r"\s*\*/\s*$", "", body).strip()
    if NONE_RE.match(body):
        return []
    names = [x.strip() for x in body.split(",")]
    bad = [x for x in names if not NAME_RE.match(x)]
    if bad:
        raise ValueError("not a name: %r (names are separated by ', ')" % bad[0])
    if len(set(names)) != len(names):
        raise ValueError("a name is listed twice")
    return names


def resolve(include, here, src):
    for base in (here, src):
        p = os.path.normpath(os.path.join(base, include))
        if os.path.isfile(p):
            return p
    return None


def find_templates(src):
    """{template: (instantiating file, line of its LS_REAL_IMPL or #include)}."""
    found = {}
    for root, _, files in os.walk(src):
        for fn in files:
            if not fn.endswith((".c", ".h", ".cu")):
                continue
            path = os.path.join(root, fn)
            for no, d in split_source(path)[0]:
                m = re.match(r'#define LS_REAL_IMPL "([^"]+)"', d)
                if m:
                    t = resolve(m.group(1), root, src)
                    if t is None:
                        raise RuntimeError("%s:%d: LS_REAL_IMPL %s not found" % (path, no, m.group(1)))
                    found.setdefault(t, (path, no))
    # Templates included by templates are instantiated with them.
    todo = list(found)
    while todo:
        t = todo.pop()
        for no, d in split_source(t)[0]:
            m = re.match(r'#include "([^"]+_impl\.h)"', d)
            if m:
                inc = resolve(m.group(1), os.path.dirname(t), src)
                if inc and inc not in found:
                    found[inc] = (t, no)
                    todo.append(inc)
    return found


def prelude_for(template, templates, src):
    """The #defines in force where template is included: real_macros.h's, then
    those of the chain of files that include it, outermost first."""
    chain, t = [], template
    while t in templates:
        parent, line = templates[t]
        chain.append((parent, line))
        t = parent
    out = directives_until(os.path.join(src, "common", "real_macros.h"))
    for parent, line in reversed(chain):
        out += [d for d in directives_until(parent, line) if not re.match(r"#(define|undef) (SFX|REAL)\b", d)]
    return out


PROBE = """
int FN(ext_fn)(int m, REAL *a)
{ return m; }
static int FN(local_fn)(void) { return 0; }
const struct ops FN(ext_ops) = {.f = 0, .g = {1, 2}};
static const int FN(local_table)[2] = {1, 2};
typedef struct FN(ws) { REAL *x; } FN(ws);
int FN(proto)(int);
extern int FN(elsewhere);
REAL *MINE(ptr_fn)(const FN(ws) *w) { return w->x; }
"""


def probe_ok(cc, tmpdir):
    """The parser and expansion find what they must in a known text, so the
    test cannot pass by finding nothing."""
    path = os.path.join(tmpdir, "probe_impl.h")
    with open(path, "w", encoding="utf-8") as f:
        f.write("#define MINE(x) my_##x\n" + PROBE)
    dirs, toks = split_source(path)
    prelude = ["#define LS_CAT2_(a, b) a##_##b", "#define LS_CAT2(a, b) LS_CAT2_(a, b)",
               "#define FN(name) LS_CAT2(name, SFX)"]
    defs = external_definitions(toks, function_macros(prelude + [d for _, d in dirs]))
    got = set()
    for sfx, real in PRECISIONS:
        got.update(expand(cc, prelude, dirs, defs, sfx, real))
    want = {"ext_fn_d", "ext_fn_s", "ext_ops_d", "ext_ops_s", "my_ptr_fn"}
    if got != want:
        print("FAILED: the definition parser found %s in its probe, not %s" % (sorted(got), sorted(want)))
        return False
    return True


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = os.path.abspath(sys.argv[1])
    cc = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CC", "cc")
    src = os.path.join(root, "src")
    failures = 0

    def fail(msg):
        nonlocal failures
        print("FAILED: " + msg)
        failures += 1

    tmpdir = os.environ.get("TMPDIR", "/tmp")
    probe_dir = os.path.join(tmpdir, "ls-precision-defines-%d" % os.getpid())
    os.makedirs(probe_dir, exist_ok=True)
    try:
        if not probe_ok(cc, probe_dir):
            failures += 1
        if not generated_names.probe_ok(cc, probe_dir):
            failures += 1
    finally:
        for fn in os.listdir(probe_dir):
            os.remove(os.path.join(probe_dir, fn))
        os.rmdir(probe_dir)

    templates = find_templates(src)

    def precision_sets(t):
        # The #defines in force in a template, once per precision.
        prelude = prelude_for(t, templates, src)
        return tuple(["#define SFX " + sfx, "#define REAL " + real] + prelude for sfx, real in PRECISIONS)
    # A *_impl.h written over FN that nothing instantiates is a template too
    # (and is reported, since its names exist nowhere).
    for r, _, files in os.walk(src):
        for fn in files:
            p = os.path.join(r, fn)
            if fn.endswith("_impl.h") and p not in templates:
                dirs, toks = split_source(p)
                if any(t in ("FN", "SFX") for _, t in toks) or any("SFX" in d for _, d in dirs):
                    fail("%s is written over FN/SFX but no file instantiates it" % os.path.relpath(p, root))
    if not templates:
        fail("no precision templates found under %s (no '#define LS_REAL_IMPL')" % src)

    total = 0
    for t in sorted(templates):
        rel = os.path.relpath(t, root)
        dirs, toks = split_source(t)
        prelude = prelude_for(t, templates, src)
        try:
            defs = external_definitions(toks, function_macros(prelude + [d for _, d in dirs]))
        except ValueError as e:
            fail("%s: %s" % (rel, e))
            continue
        defined = {}
        for sfx, real in PRECISIONS:
            for (no, expr), name in zip(defs, expand(cc, prelude, dirs, defs, sfx, real)):
                if not NAME_RE.match(name):
                    fail("%s:%d: %s does not expand to one name for SFX=%s (got %r)" % (rel, no, expr, sfx, name))
                    continue
                defined[name] = (no, expr)
        for no, name in generated_names.generated_names(cc, t, src, precision_sets(t))[0]:
            defined.setdefault(name, (no, "a macro call"))
        in_order = [n for n, _ in sorted(defined.items(), key=lambda x: (x[1][0], x[0]))]
        try:
            listed = read_defines(t)
        except ValueError as e:
            fail("%s: malformed Defines list: %s" % (rel, e))
            continue
        if listed is None:
            fail("%s: its opening comment has no ' * Defines:' line; it defines: %s"
                 % (rel, ", ".join(in_order) or "none"))
            continue
        for name, (no, expr) in sorted(defined.items(), key=lambda x: (x[1][0], x[0])):
            if name not in listed:
                fail("%s:%d defines %s (%s) but its Defines list does not name it" % (rel, no, name, expr))
        for name in listed:
            if name not in defined:
                fail("%s lists %s, which it does not define with external linkage" % (rel, name))
        total += len(listed)
        print("%-45s %2d names" % (rel, len(listed)))
    print("%d precision templates, %d names of external linkage listed" % (len(templates), total))
    files, listed, declared = generated_names.check(
        cc, root, src, templates, lambda p: precision_sets(p) if p in templates else ((),), fail)
    print("%d files define names by macro calls, %d names listed; %d names declared by macro calls, "
          "each named on its line" % (files, listed, declared))
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
