"""The architecture as a test: data flows one way, nothing imports upward, no cycles.

Layers, lowest first: core < topologies < netlab < workloads < run < judge < commands.
A module may import its own package and lower layers only. labvm (the lab-VM
tool) may import core only. Entry points (emulate.py, beowulf_netlab/__main__.py, bench/, the
`mn --custom` file topologies/mininet_topos.py, the old names' shims and their _old_names.py) may
import anything and are imported by nothing; commands is imported by nothing but
beowulf_netlab/__main__.py, and a verb module of commands
imports no other verb (only commands.args and the package): what verbs share
lives below them (run.session runs every sweep). Every import counts,
including those inside functions. Names below are relative to the package, beowulf_netlab/
(`beowulf_netlab.run.sweep` is `run.sweep` here).
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TOP = "beowulf_netlab"
PKG = ROOT / TOP
LAYERS = ["core", "topologies", "netlab", "workloads", "run", "judge", "commands"]
OTHER = {"labvm": ["core", "labvm"]}
ENTRY_POINTS = {"__main__.py", "_old_names.py", "topologies/mininet_topos.py"}   # relative to PKG
PROJECT = set(LAYERS) | set(OTHER)


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PROJECT:
        for path in (PKG / pkg).rglob("*.py"):
            rel = path.relative_to(PKG).as_posix()
            if rel in ENTRY_POINTS:
                continue
            name = rel[:-3].replace("/", ".")
            out[name.removesuffix(".__init__")] = path
    return out


def imports(path: Path) -> set[str]:
    found = set()
    package = path.resolve().relative_to(ROOT).parent.parts   # where `from . import x` starts
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            module = ".".join(m for m in (base, node.module) if m)
            if module:
                found.add(module)
                found |= {f"{module}.{a.name}" for a in node.names}
    found = {m.removeprefix(TOP + ".") for m in found if m != TOP}   # relative to the package
    return {m for m in found if m.split(".")[0] in PROJECT | {"bench", "emulate", "__main__", "_old_names"}}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: {m for m in imports(path) if m in mods and m != name} for name, path in mods.items()}


def allowed(src: str, dst: str) -> bool:
    a, b = src.split(".")[0], dst.split(".")[0]
    if a in OTHER:
        return b in OTHER[a]
    return b in LAYERS and LAYERS.index(b) <= LAYERS.index(a)


def test_nothing_imports_upward():
    bad = sorted(f"{src} -> {dst}" for src, dsts in graph().items() for dst in dsts
                 if not allowed(src, dst))
    assert bad == [], "upward imports:\n" + "\n".join(bad)


def test_nothing_imports_entry_points_or_the_command_line():
    for path in [*PKG.rglob("*.py"), *ROOT.glob("examples/*.py")]:
        rel = path.relative_to(PKG).as_posix() if path.is_relative_to(PKG) else path.relative_to(ROOT).as_posix()
        if rel in ENTRY_POINTS:
            continue
        names = imports(path)
        assert not any(n.split(".")[0] in ("bench", "emulate", "__main__", "_old_names") for n in names), rel
        if not rel.startswith("commands/"):
            assert not any(n.split(".")[0] == "commands" for n in names), rel


def test_the_package_imports_no_old_name():
    """Inside beowulf_netlab every import is by the new name (the old ones are a checkout's shims)."""
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            assert not [n for n in names if n.split(".")[0] in PROJECT], (path.relative_to(ROOT).as_posix(), names)


SHARED_COMMANDS = {"commands", "commands.args"}   # the dispatcher and the shared flags


def is_verb(name: str) -> bool:
    return name.split(".")[0] == "commands" and name not in SHARED_COMMANDS


def test_verbs_do_not_import_verbs():
    bad = sorted(f"{src} -> {dst}" for src, dsts in graph().items() if is_verb(src)
                 for dst in dsts if is_verb(dst))
    assert bad == [], "a verb imports another verb (move what they share under beowulf_netlab/run/ or beowulf_netlab/judge/):\n" + "\n".join(bad)


def test_no_import_cycles():
    g = graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(g[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for start in sorted(g):
        if start not in state:
            visit(start, [start])
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_every_package_says_who_does_what():
    for pkg in [TOP, *sorted(PROJECT - {"labvm"})]:
        doc = ast.get_docstring(ast.parse(((PKG / pkg if pkg != TOP else PKG) / "__init__.py").read_text())) or ""
        assert "Division of labor" in doc, pkg


def _docstring_map(pkg: str) -> tuple[str, set[str], set[str]]:
    """A package's opening docstring, its modules, and the names its __init__ defines."""
    folder = PKG / pkg if pkg != TOP else PKG
    init = ast.parse((folder / "__init__.py").read_text())
    defined = {n.name for n in init.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | \
        {t.id for n in init.body if isinstance(n, (ast.Assign, ast.AnnAssign))
         for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    mods = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | \
        {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
    if pkg == TOP:   # the package's data folders too (claims, experiments, ...: no __init__.py)
        mods |= {p.name for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__"}
    return ast.get_docstring(init) or "", mods, defined


def test_every_module_is_on_its_packages_map_and_the_map_names_no_ghost():
    """The opening docstring of each package names every module in it, and every `name` it
    quotes is a module there, another package, or something its __init__ defines."""
    import re
    for pkg in [TOP, *sorted(PROJECT)]:
        doc, mods, defined = _docstring_map(pkg)
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", doc))
        missing = sorted(m for m in mods if m not in words)
        assert not missing, f"{pkg}/__init__.py's docstring does not name {missing}"
        ghosts = sorted(w for w in re.findall(r"`([a-z_][a-z0-9_]*)`", doc)
                        if w not in mods | PROJECT | defined)
        assert not ghosts, f"{pkg}/__init__.py's docstring names modules that do not exist: {ghosts}"
