"""The order in which a forward pass uses a model's modules: the data flow, measured.

Views list things "in data-flow order" (token embedding before positions before blocks before the
head) without a table that says what that order is: they run the model once on its own example
input and note when each module is first called. Module registration order is no substitute:
GPT builds its token embedding after its blocks (so initial weights stay reproducible), but uses
it first.
"""

from __future__ import annotations

import torch


def first_use(model) -> dict[str, int]:
    """Module path -> when the forward pass first called it (0, 1, 2 ...)."""
    order: dict[str, int] = {}

    def seen(path: str) -> None:
        order.setdefault(path, len(order))  # returns None: a pre-hook that returned a value would replace the input

    handles = [
        m.register_forward_pre_hook(lambda mod, args, path=path: seen(path))
        for path, m in model.named_modules()
        if path
    ]
    was_training = model.training
    try:
        with torch.no_grad():
            x = model.example_input(1, 2)  # a tensor, or a tuple of tensors (an encoder-decoder's)
            model.eval()(*x) if isinstance(x, tuple) else model.eval()(x)
    finally:
        model.train(was_training)
        for h in handles:
            h.remove()
    return order
