"""Models: thin assemblies of the parts in glassformer.nn.

    GPT                decoder-only language model (token ids -> next-token logits)
    Encoder            the same stack, bidirectional by default, with padding masks
    SequenceRegressor  numbers in, numbers out (the sine-wave model)
"""

from glassformer.models.encoder import Encoder
from glassformer.models.gpt import GPT
from glassformer.models.regressor import SequenceRegressor

MODEL_KINDS = {"gpt": GPT, "encoder": Encoder, "regressor": SequenceRegressor}

__all__ = ["GPT", "Encoder", "SequenceRegressor", "MODEL_KINDS"]
