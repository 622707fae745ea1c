"""Why the lab's `balance.even` failed for the balance loss: its arm (baby-moe with the Switch
Transformer loss, seed 0) trained as the entry trains it (200 steps, alpha 0.01), then three times
longer, then with ten times the alpha; each model's load counted over the entry's validation windows.
One seed: a probe of the two obvious explanations, not a verdict.

    PYTHONPATH=src python bench/balance_why.py
"""

import time

import numpy as np
import torch

from glassformer.lab.balance import PRESET, WINDOWS, balance, loads
from glassformer.lab.common import fixed_windows, load_corpus, preset_for_lab, train

torch.set_num_threads(1)
corpus = load_corpus("shakespeare")
x, _ = fixed_windows(corpus.val, 64, WINDOWS, seed=1)
for steps, alpha in [(200, 0.01), (600, 0.01), (200, 0.1)]:
    t0 = time.process_time()
    fit = train(preset_for_lab(PRESET, seq_len=64, moe_aux_loss=alpha), corpus, 0, steps)
    b = balance(loads(fit.model, x))
    print(
        f"steps {steps} alpha {alpha}: worst MaxVio {max(b['max_violation']):.3f}, per layer "
        f"{[round(v, 3) for v in b['max_violation']]}, entropy {np.mean(b['entropy']):.3f}, "
        f"cpu {time.process_time() - t0:.0f} s",
        flush=True,
    )
