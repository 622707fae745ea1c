"""One grading run shared by the exercise tests: every reference solution, every known-wrong
variant, every untouched skeleton and a few hand-made learners go through ONE `check_many` call
(torch is imported once in the child). The learners that end a child (a hard exit, an endless
loop with its own short time limit) come last, followed by a correct file, so the restarts after
them are exercised too.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from glassformer.exercises import catalog, educator, grading, session

LOOP_TIMEOUT = 2.0  # seconds; the endless loop is stopped by it (the other jobs get the default)

SPECIAL = {
    # name: (exercise, {file name: source})
    "no_graph": (
        "softmax",
        {
            "softmax.py": """
        import torch
        def softmax(x, dim=-1):
            e = torch.tensor(x.tolist(), dtype=torch.float64)  # numbers copied: the graph is lost
            e = torch.exp(e - e.amax(dim=dim, keepdim=True))
            return e / e.sum(dim=dim, keepdim=True)
        """
        },
    ),
    "bad_backward": (
        "softmax",
        {
            "softmax.py": """
        import torch
        class Soft(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                e = torch.exp(x - x.amax(dim=-1, keepdim=True))
                return e / e.sum(dim=-1, keepdim=True)
            @staticmethod
            def backward(ctx, g):
                return g  # as if softmax were the identity
        def softmax(x, dim=-1):
            return Soft.apply(x.movedim(dim, -1)).movedim(-1, dim)
        """
        },
    ),
    "view_after_transpose": (
        "heads",
        {
            "heads.py": """
        import torch
        def split_heads(x, n_heads):
            B, T, C = x.shape
            return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)
        def merge_heads(z):
            B, H, T, D = z.shape
            return z.transpose(1, 2).view(B, T, H * D)
        """
        },
    ),
    "exception": (
        "causal_mask",
        {
            "causal_mask.py": """
        def causal_mask(T):
            return helper(T)  # NameError: no such helper
        """
        },
    ),
    "memory": (
        "causal_mask",
        {
            "causal_mask.py": """
        import torch
        def causal_mask(T):
            big = torch.empty(1 << 29, dtype=torch.float64)  # 4 GiB of address space
            return torch.tril(torch.ones(T, T, dtype=torch.bool))
        """
        },
    ),
    "global_state": (
        "causal_mask",
        {
            "causal_mask.py": """
        import torch
        torch.set_grad_enabled(False)  # at import: must not reach the next file graded
        torch.set_default_dtype(torch.float16)
        def causal_mask(T):
            return torch.tril(torch.ones(T, T, dtype=torch.bool))
        """
        },
    ),
    "after_global_state": ("softmax", {"softmax.py": catalog.get("softmax").solution}),
    "todo_and_wrong": (  # one function still TODO, the other finished and wrong: the wrong one must show
        "heads",
        {
            "heads.py": """
        def split_heads(x, n_heads):
            raise NotImplementedError
        def merge_heads(z):
            B, H, T, D = z.shape
            return z.reshape(B, T, H * D)  # without the transpose first: heads and tokens mixed
        """
        },
    ),
    "float32_mask": (
        "causal_mask",
        {
            "causal_mask.py": """
        import torch
        def causal_mask(T):
            return torch.tril(torch.ones(T, T)).to(torch.float64)  # 1.0 / 0.0 in float64
        """
        },
    ),
}


def _write(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in files.items():
        (folder / name).write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """{key: Report}. Keys: ("solution", name), ("variant", name, id), ("skeleton", name),
    ("special", key), ("siblings", "right"/"wrong"), ("exit",), ("loop",), ("after",)."""
    root = tmp_path_factory.mktemp("learners")
    items: list[tuple[object, str, Path]] = []
    for name in catalog.ORDER:
        ex = catalog.get(name)
        items.append((("solution", name), name, ex.solution_path))
        for v in ex.variants:
            folder = root / "variants" / f"{name}-{v.id}"
            _write(folder, {f"{name}.py": educator.variant_source(ex, v)})
            items.append((("variant", name, v.id), name, folder / f"{name}.py"))
        path, written = session.write_skeleton(name, root / "skeletons", "en")
        assert written
        items.append((("skeleton", name), name, path))
    for key, (name, files) in SPECIAL.items():
        _write(root / "special" / key, files)
        items.append((("special", key), name, root / "special" / key / f"{name}.py"))
    # the learner's multi-head attention imports the learner's own attention.py and heads.py;
    # two folders in one child: the second's wrong attention.py must not be served from the first
    mha = (
        "from attention import scaled_dot_product_attention\nfrom heads import split_heads, merge_heads\n\n"
        "def multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):\n"
        "    C = x.shape[-1]\n    qkv = x @ w_qkv.T + (0.0 if b_qkv is None else b_qkv)\n"
        "    q, k, v = (split_heads(t, n_heads) for t in qkv.split(C, dim=-1))\n"
        "    z, _ = scaled_dot_product_attention(q, k, v, mask)\n"
        "    out = merge_heads(z) @ w_out.T\n    return out if b_out is None else out + b_out\n"
    )
    attention = catalog.get("attention")
    wrong = next(v for v in attention.variants if v.id == "scale_by_d")
    for key, attention_source in (
        ("right", attention.solution),
        ("wrong", educator.variant_source(attention, wrong)),
    ):
        _write(
            root / "siblings" / key,
            {
                "multi_head_attention.py": mha,
                "attention.py": attention_source,
                "heads.py": catalog.get("heads").solution,
            },
        )
        items.append((("siblings", key), "multi_head_attention", root / "siblings" / key / "multi_head_attention.py"))
    # last: a hard exit, then an endless loop (graded by a fresh child), then a correct file
    # (graded by a third child): each accident costs its own job and nothing else
    _write(root / "exit", {"softmax.py": "import os\n\ndef softmax(x, dim=-1):\n    os._exit(7)\n"})
    _write(root / "loop", {"softmax.py": "def softmax(x, dim=-1):\n    while True:\n        pass\n"})
    solution = catalog.get("softmax").solution_path
    tasks = [(name, path) for _, name, path in items]
    items += [
        (("exit",), "softmax", root / "exit" / "softmax.py"),
        (("loop",), "softmax", root / "loop" / "softmax.py"),
        (("after",), "softmax", solution),
    ]
    tasks += [
        ("softmax", root / "exit" / "softmax.py"),
        ("softmax", root / "loop" / "softmax.py", LOOP_TIMEOUT),
        ("softmax", solution),
    ]
    reports = grading.check_many(tasks)
    return {key: report for (key, _, _), report in zip(items, reports, strict=False)}
