"""Run a notebook the way a reader would, top to bottom in a fresh kernel, with its settings replaced.

papermill's convention, done by hand in a few lines: the cell tagged `parameters` keeps its values,
and a cell inserted right after it (tagged `injected-parameters`) assigns the new ones. A cell
appended at the end prints the notebook's `RESULTS` as JSON after a marker, which is how a test
reads what the notebook computed.

The kernel is this interpreter (`sys.executable -m ipykernel_launcher`), given to jupyter_client
as an explicit kernel spec: nothing is looked up or registered outside the virtual environment,
and a `python3` kernel some other Python installed cannot be picked by mistake.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
from helpers import ROOT
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NOTEBOOKS = ROOT / "notebooks"
MARKER = "@@glassformer-results@@"
KERNEL = "glassformer-venv"


class ThisPython(KernelSpecManager):
    """Answers every kernel lookup with a kernel run by this very interpreter."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name=f"Python ({sys.executable})",
            language="python",
            name=KERNEL,
        )


def parameters_cell(nb) -> int:
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise AssertionError(f"a notebook needs exactly one cell tagged 'parameters', found {len(tagged)}")
    return tagged[0]


def run_notebook(
    path: Path, params: dict, workdir: Path, timeout: int = 120, cache: Path | None = None
) -> tuple[dict, object, float]:
    """Execute `path` with `params` injected, in `workdir`; return (RESULTS, the executed notebook,
    the kernel's CPU seconds: a load-independent measure of the notebook's cost).
    Corpora are prepared in `cache` (default: a folder in `workdir`, so nothing outside is touched)."""
    workdir.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(path, as_version=4)
    at = parameters_cell(nb)
    injected = nbformat.v4.new_code_cell("\n".join(f"{k} = {v!r}" for k, v in params.items()))
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(at + 1, injected)
    nb.cells.append(
        nbformat.v4.new_code_cell(  # RESULTS, and the CPU seconds the kernel has used
            f"import json as _json, time as _time\n"
            f"print({MARKER!r} + _json.dumps({{'results': RESULTS, 'cpu_s': _time.process_time()}}, default=float))"
        )
    )
    env = {
        **os.environ,
        "GLASSFORMER_CACHE": str(cache or workdir / "cache"),
        "IPYTHONDIR": str(workdir / "ipython"),
        "JUPYTER_RUNTIME_DIR": str(workdir / "runtime"),
    }
    km = KernelManager(kernel_name=KERNEL, kernel_spec_manager=ThisPython())
    client = NotebookClient(
        nb, km=km, timeout=timeout, shutdown_kernel="immediate", resources={"metadata": {"path": str(workdir)}}
    )
    client.execute(env=env, cleanup_kc=True)  # cleanup_kc: shut the kernel down even though we made its manager
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    line = next((ln for ln in text.splitlines() if ln.startswith(MARKER)), None)
    if line is None:
        raise AssertionError(f"{path.name} printed no RESULTS; its last cell said: {text[-500:]!r}")
    out = json.loads(line[len(MARKER) :])
    return out["results"], nb, out["cpu_s"]
