#!/usr/bin/env python3
"""Generate Sluice's Fortran bindings from include/mpi.h (src/fortran/README.md).

Reads the C declarations through the C preprocessor (so #ifdefs and macros
are resolved as a C program would see them) and writes:

  mpif.h            every integer MPI constant as a PARAMETER, the special
                    addresses (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE,
                    ...) as COMMON blocks, MPI_WTIME/MPI_WTICK; lines valid
                    in fixed and free source form alike (column 7 on,
                    shorter than 73 columns, '!' comments).
  mpi_fortran_gen.c one wrapper per MPI function in the gfortran calling
                    convention (lower case, trailing underscore, every
                    argument by reference, an INTEGER ierror last, hidden
                    string lengths after it).
  mpif_consts.h     mpif.h without MPI_WTIME/MPI_WTICK (the module declares them)
  mpi_interfaces.inc the mpi module's explicit interfaces of those wrappers
                    (choice buffers through gfortran's NO_ARG_CHECK)
  bound.txt         the functions bound and those left out, with the reason.

usage: gen_fortran.py CC MPI_H OUTDIR
"""
import os
import re
import subprocess
import sys

HANDLES = {"MPI_Comm", "MPI_Datatype", "MPI_Info", "MPI_Op", "MPI_Win", "MPI_Group",
           "MPI_Errhandler", "MPI_Request", "MPI_Message", "MPI_File", "MPI_Session"}
WIDE = {"MPI_Aint", "MPI_Count", "MPI_Offset"}
# void* arguments that are message buffers: MPI_BOTTOM and MPI_IN_PLACE translate
BUFFERS = {"buf", "buffer", "sendbuf", "recvbuf", "inbuf", "outbuf", "inoutbuf",
           "origin_addr", "result_addr", "compare_addr", "packed", "base"}
# void* arguments passed as they are: an address the program names, or an
# INTEGER(KIND=MPI_ADDRESS_KIND) that receives an address (a C pointer's size)
RAW = {"location", "baseptr"}
# callbacks whose Fortran procedures C can call directly: every argument by
# reference on both sides (MPI 4.0 §17.1.5 USER_FUNCTION, COMM_ERRHANDLER_FUNCTION)
CALLBACKS = {"MPI_User_function *", "MPI_Comm_errhandler_function *",
             "MPI_Handler_function *"}
# written by hand in mpi_fortran.c
HANDWRITTEN = {"MPI_Init", "MPI_Init_thread", "MPI_Pcontrol", "MPI_Wtime", "MPI_Wtick",
               "MPI_Comm_get_attr", "MPI_Comm_set_attr", "MPI_Attr_get", "MPI_Attr_put"}
# MPI-1 functions whose Fortran forms take INTEGER where C takes MPI_Aint
INT_ADDRESS = {"MPI_Type_hvector", "MPI_Type_hindexed", "MPI_Type_struct", "MPI_Address",
               "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub"}


def preprocess(cc, header, flags):
    inc = os.path.dirname(os.path.abspath(header))
    return subprocess.run([cc, "-E", *flags, "-I", inc, header], check=True,
                          capture_output=True, text=True).stdout


def split_args(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_param(p):
    """(type, name, suffix) of one C parameter: 'const int a[]' -> ('const int', 'a', '[]')."""
    m = re.match(r"^(.*?)(\w+)\s*((?:\[[^\]]*\])*)$", p)
    typ, name, suf = m.group(1).strip(), m.group(2), m.group(3).replace(" ", "")
    typ = re.sub(r"\s*\*", " *", re.sub(r"\s+", " ", typ)).replace("* *", "**").strip()
    return typ, name, suf


def prototypes(cc, header):
    text = preprocess(cc, header, ["-P"]).replace("\n", " ")
    out = []
    for stmt in text.split(";"):
        m = re.match(r"^\s*(int|double)\s+(MPI_\w+)\s*\((.*)\)\s*$", stmt)
        if m:
            args = m.group(3).strip()
            params = [] if args in ("void", "") else split_args(args)
            out.append((m.group(1), m.group(2), params))
    return out


class Fn:
    def __init__(self, name):
        self.name = name
        self.fparams = []   # C parameters of the Fortran entry point
        self.pre = []       # statements before the call
        self.args = []      # arguments of the C call
        self.post = []      # statements after the call
        self.lens = []      # hidden string lengths
        self.fdecl = []     # (dummy name, Fortran declaration) for the mpi module


def bind(ret, name, params):
    """An Fn, or the reason why the function is not bound."""
    if name in HANDWRITTEN:
        return "written by hand"
    if name in INT_ADDRESS:
        return "MPI-1 form with INTEGER addresses (use the MPI-2 function)"
    if name.endswith(("_c2f", "_f2c")) or "_c2f" in name or "_f2c" in name:
        return "C only"
    if name.endswith("_c"):
        return "MPI-4 large-count form: Fortran has it in mpi_f08 only"
    f = Fn(name)
    for p in params:
        if p == "...":
            return "variable arguments"
        typ, n, suf = parse_param(p)
        base = typ.replace("const", "").strip()
        f.fdecl.append((n, fortran_decl(typ, base, n, suf)))
        if suf == "" and (base == "int" or base in HANDLES):
            f.fparams.append(f"MPI_Fint *{n}")
            f.args.append(f"({base})*{n}")
        elif suf == "" and base in WIDE:
            f.fparams.append(f"{base} *{n}")
            f.args.append(f"*{n}")
        elif typ in CALLBACKS:
            f.fparams.append(f"{typ}{n}")
            f.args.append(n)
        elif base.endswith("*") and base.rstrip("* ").strip() in CALLBACK_TYPES:
            return "callback with C-only arguments (attribute copy/delete)"
        elif base in ("void *",):
            if n == "buffer_addr":  # MPI_Buffer_detach: the address is C's alone
                f.fparams.append(f"void *{n}")
                f.pre.append(f"void *c_addr = NULL; (void){n};")
                f.args.append("&c_addr")
            elif n in BUFFERS:
                f.fparams.append(f"{typ} {n}" if typ.endswith("*") else f"{typ} *{n}")
                f.args.append(f"SL_F_BUF({n})")
            elif n in RAW:
                f.fparams.append(f"{typ} {n}")
                f.args.append(n)
            else:
                return f"void * argument '{n}' (attribute or memory pointer)"
        elif base == "MPI_Status *" and suf == "":
            if typ.startswith("const"):
                f.fparams.append(f"const MPI_Fint *{n}")
                f.args.append(f"(const MPI_Status *){n}")
            elif "statuses" in n:
                f.fparams.append(f"MPI_Fint *{n}")
                f.args.append(f"SL_F_STATUSES({n})")
            else:
                f.fparams.append(f"MPI_Fint *{n}")
                f.args.append(f"SL_F_STATUS({n})")
        elif base == "MPI_Status" and suf == "[]":
            f.fparams.append(f"MPI_Fint *{n}")
            f.args.append(f"SL_F_STATUSES({n})")
        elif base == "char *" and suf == "":
            if typ.startswith("const"):  # input: blanks trimmed, NUL added
                f.fparams.append(f"const char *{n}")
                f.pre.append(f"char *c_{n} = sl_f_cstr({n}, {n}_len);")
                f.args.append(f"c_{n}")
                f.post.append(f"free(c_{n});")
            else:  # output: through a buffer, then blank-padded
                f.fparams.append(f"char *{n}")
                f.pre.append(f"char *c_{n} = sl_f_outbuf({n}_len);")
                f.args.append(f"c_{n}")
                f.post.append(f"sl_f_fstr(c_{n}, {n}, {n}_len);")
            f.lens.append(f"size_t {n}_len")
        elif base.startswith("char"):
            return "char ** / char *** argument"
        elif base.endswith("*") or suf:
            # out parameters and arrays of int, handles and addresses: the
            # Fortran INTEGER (kind 4 = MPI_Fint = int, handles are ints) or
            # INTEGER(KIND=MPI_ADDRESS_KIND) (= MPI_Aint) storage as it is
            elem = base.rstrip("*").strip()
            if elem not in ("int",) and elem not in HANDLES and elem not in WIDE:
                return f"argument type '{p}'"
            if suf and suf != "[]":
                f.fparams.append(f"{typ} {n}{suf}")
            else:
                f.fparams.append(f"{elem} *{n}" if not typ.startswith("const") else f"const {elem} *{n}")
            # graph weights: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY come as
            # the addresses of their COMMON blocks
            f.args.append(f"SL_F_WEIGHTS({n})" if n.endswith("weights") and elem == "int" else n)
        else:
            return f"argument type '{p}'"
    return f


# int arguments that are LOGICAL in Fortran (MPI 4.0 chapter 19)
LOGICALS = {"flag", "reorder", "periods", "remain_dims", "high", "commute", "weighted"}
CHOICE = "!GCC$ ATTRIBUTES NO_ARG_CHECK :: {n}\n    type(*), dimension(*) :: {n}"


def fortran_decl(typ, base, n, suf):
    """The declaration of one dummy argument in the mpi module's interface
    (None: the function is not bound, bind() says why)."""
    elem = base.rstrip("*").strip() if base.endswith("*") else base
    kind = "logical" if n in LOGICALS else "integer"
    if elem in WIDE:
        kind = "integer(kind=8)"
    if typ in CALLBACKS:
        return f"external :: {n}"
    if base == "void *":
        if n == "baseptr":
            return f"integer(kind=8) :: {n}"
        return CHOICE.format(n=n)
    if base == "MPI_Status *" or (base == "MPI_Status" and suf == "[]"):
        return f"integer :: {n}(5, *)" if ("statuses" in n or suf) else f"integer :: {n}(5)"
    if base == "char *":
        return f"character(len=*) :: {n}"
    if suf == "[][3]":
        return f"{kind} :: {n}(3, *)"
    if suf:
        return f"{kind} :: {n}(*)"
    return f"{kind} :: {n}"


def interface(f):
    """The mpi module's explicit interface of a generated wrapper."""
    names = [n for n, _ in f.fdecl] + ["ierror"]
    lines = [f"  subroutine {f.name}({', '.join(names)})"]
    lines += ["    " + d for _, d in f.fdecl]
    lines += ["    integer :: ierror", f"  end subroutine {f.name}", ""]
    out = []
    for line in lines:  # free form: continue long lines
        while len(line) > 120:
            cut = line.rfind(", ", 0, 110) + 2
            out.append(line[:cut] + "&")
            line = "      & " + line[cut:]
        out.append(line)
    return "\n".join(out)


CALLBACK_TYPES = {"MPI_Comm_copy_attr_function", "MPI_Comm_delete_attr_function",
                  "MPI_Type_copy_attr_function", "MPI_Type_delete_attr_function",
                  "MPI_Copy_function", "MPI_Delete_function", "MPI_Win_copy_attr_function",
                  "MPI_Win_delete_attr_function", "MPI_Grequest_query_function",
                  "MPI_Grequest_free_function", "MPI_Grequest_cancel_function",
                  "MPI_Datarep_conversion_function", "MPI_Datarep_extent_function"}


def wrapper(f):
    params = f.fparams + ["MPI_Fint *ierror"] + f.lens
    lines = [f"void {f.name.lower()}_({', '.join(params)});",
             f"void {f.name.lower()}_({', '.join(params)})", "{"]
    lines += ["    " + s for s in f.pre]
    lines.append(f"    int rc = {f.name}({', '.join(f.args)});")
    lines += ["    " + s for s in f.post]
    lines += ["    *ierror = rc;", "}", ""]
    return "\n".join(lines)


def c_int(v):
    v &= 0xffffffffffffffff
    if v >= 1 << 63:
        v -= 1 << 64
    if 1 << 31 <= v < 1 << 32:
        v -= 1 << 32
    return v


def constants(cc, header):
    macros = {}
    for line in preprocess(cc, header, ["-dM"]).splitlines():
        m = re.match(r"^#define (MPI_[A-Z0-9_]+) (.*)$", line)
        if m:
            macros[m.group(1)] = m.group(2).strip()
    values = {}

    def value(name, depth=0):
        if name in values or depth > 20:
            return values.get(name)
        v = macros[name]
        if "*" in v or '"' in v:
            return None
        v = re.sub(r"\(\s*MPI_[A-Za-z]\w*\s*\)(?=\s*[-0-9(])", "", v)  # casts
        for ref in set(re.findall(r"\bMPI_\w+\b", v)):
            if ref not in macros:
                return None
            rv = value(ref, depth + 1)
            if rv is None:
                return None
            v = re.sub(rf"\b{ref}\b", f"({rv})", v)
        if re.search(r"[A-Za-z_](?<!0x)", re.sub(r"0[xX][0-9a-fA-F]+|[0-9]+[uUlL]*", "", v)):
            return None
        try:
            r = eval(re.sub(r"([0-9a-fA-Fx]+)[uUlL]+", r"\1", v), {"__builtins__": {}})
        except Exception:
            return None
        if not isinstance(r, int):
            return None
        values[name] = c_int(r)
        return values[name]

    for n in sorted(macros):
        value(n)
    return values


SPECIAL = [  # Fortran name, declaration, C symbol of its COMMON block
    ("MPI_BOTTOM", "INTEGER MPI_BOTTOM", "sl_f_bottom"),
    ("MPI_IN_PLACE", "INTEGER MPI_IN_PLACE", "sl_f_in_place"),
    ("MPI_STATUS_IGNORE", "INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)", "sl_f_status_ignore"),
    ("MPI_STATUSES_IGNORE", "INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)",
     "sl_f_statuses_ignore"),
    ("MPI_ERRCODES_IGNORE", "INTEGER MPI_ERRCODES_IGNORE(1)", "sl_f_errcodes_ignore"),
    ("MPI_UNWEIGHTED", "INTEGER MPI_UNWEIGHTED", "sl_f_unweighted"),
    ("MPI_WEIGHTS_EMPTY", "INTEGER MPI_WEIGHTS_EMPTY", "sl_f_weights_empty"),
]


def mpif(values):
    out = ["! mpif.h: Sluice's MPI constants for Fortran (generated by",
           "! src/fortran/gen_fortran.py from include/mpi.h: do not edit).",
           "! Valid in fixed and free source form."]
    skip = {s[0] for s in SPECIAL}
    fixed = {"MPI_STATUS_SIZE": 5, "MPI_SOURCE": 3, "MPI_TAG": 4, "MPI_ERROR": 5,
             "MPI_ADDRESS_KIND": 8, "MPI_OFFSET_KIND": 8, "MPI_COUNT_KIND": 8,
             "MPI_INTEGER_KIND": 4}
    for n, v in sorted(fixed.items()):
        values.pop(n, None)
        out += [f"      INTEGER {n}", f"      PARAMETER ({n}={v})"]
    for n, v in sorted(values.items()):
        if n in skip or len(n) > 63:
            continue
        out += [f"      INTEGER {n}", f"      PARAMETER ({n}={v})"]
    for n, decl, sym in SPECIAL:
        out += [f"      {decl}", f"      COMMON /{sym.upper()}/ {n}"]
    for line in out:
        assert len(line) <= 72, line
    return "\n".join(out) + "\n"


WTIME = """      DOUBLE PRECISION MPI_WTIME, MPI_WTICK
      EXTERNAL MPI_WTIME, MPI_WTICK
"""


def main():
    cc, header, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    bound, left, ifaces = [], [], []
    code = ["/* Generated by src/fortran/gen_fortran.py from include/mpi.h: do not edit. */",
            '#include "fortran/fortran.h"', ""]
    for ret, name, params in prototypes(cc, header):
        r = bind(ret, name, params) if ret == "int" else "written by hand"
        if isinstance(r, str):
            left.append(f"{name}: {r}")
            continue
        bound.append(name)
        code.append(wrapper(r))
        ifaces.append(interface(r))
    with open(os.path.join(outdir, "mpi_fortran_gen.c"), "w") as fh:
        fh.write("\n".join(code))
    consts = mpif(constants(cc, header))
    with open(os.path.join(outdir, "mpif.h"), "w") as fh:
        fh.write(consts + WTIME)
    with open(os.path.join(outdir, "mpif_consts.h"), "w") as fh:
        fh.write(consts)
    with open(os.path.join(outdir, "mpi_interfaces.inc"), "w") as fh:
        fh.write("! Generated by src/fortran/gen_fortran.py from include/mpi.h: do not edit.\n")
        fh.write("\n".join(ifaces) + "\n")
    with open(os.path.join(outdir, "bound.txt"), "w") as fh:
        fh.write(f"# {len(bound)} functions bound by the generator\n")
        fh.write("\n".join(bound) + "\n")
        fh.write(f"# {len(left)} not generated\n")
        fh.write("\n".join(left) + "\n")


if __name__ == "__main__":
    main()
