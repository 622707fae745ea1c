"""The file `glassformer exercise start NAME` writes for the learner, and nothing else.

A skeleton holds, per function: the signature, a docstring with the math and the shape contract
(from the text table, in the learner's language), the operations to use and the ones refused
here, a TODO, and `raise NotImplementedError` (the grader reports that as "not finished", not as
a crash). It is never written over an existing file.
"""

from __future__ import annotations

from pathlib import Path

from glassformer.exercises import catalog
from glassformer.exercises.spec import Exercise
from glassformer.exercises.text import t


def render(ex: Exercise, lang: str) -> str:
    fns = ", ".join(f.name for f in ex.functions)
    head = t(
        lang,
        "skel.header",
        n=catalog.number(ex.name),
        total=len(catalog.ORDER),
        name=ex.name,
        title=t(lang, f"{ex.name}.title"),
        fns=fns,
    )
    parts = ['"""' + head + '\n"""\n', ex.header]
    for f in ex.functions:
        parts.append("\n" + _function(ex, f.name, f.signature, lang))
    return "\n".join(p.rstrip("\n") + "\n" for p in parts)


def _function(ex: Exercise, name: str, signature: str, lang: str) -> str:
    doc = t(lang, f"{ex.name}.doc.{name}").strip("\n").splitlines()
    doc += ["", t(lang, "skel.allowed") + " " + "; ".join(ex.allowed)] if ex.allowed else []
    refused = [n for rule in ex.forbidden for n in rule.names[:4]]
    if refused:
        doc += [t(lang, "skel.forbidden") + " " + ", ".join(refused) + " …"]
    doc += [t(lang, "skel.never")]
    if ex.plugs_into:
        doc += ["", t(lang, "skel.plugs", target=ex.plugs_into)]
    body = "\n".join(("    " + line).rstrip() for line in doc)
    todo = "\n".join("    # " + line for line in t(lang, f"{ex.name}.todo").splitlines())
    return (
        f'def {name}{signature}:\n    r"""{body.lstrip()}\n    """\n'
        f'{todo}\n    raise NotImplementedError("TODO: {name}")\n'
    )


def start(name: str, folder: Path, lang: str) -> tuple[Path, bool]:
    """Write the skeleton to folder/NAME.py unless a file is already there; (path, written)."""
    ex = catalog.get(name)
    path = Path(folder) / f"{ex.name}.py"
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as f:  # "x": fails rather than overwrite, even in a race
            f.write(render(ex, lang))
    except FileExistsError:
        return path, False
    return path, True
