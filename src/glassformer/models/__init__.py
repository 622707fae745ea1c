"""Models: thin assemblies of the parts in glassformer.nn, one registered kind a file.

    GPT                decoder-only language model (token ids -> next-token logits)     kind "gpt"
    Encoder            the same stack, bidirectional by default, with padding masks     kind "encoder"
    SequenceRegressor  numbers in, numbers out (the sine-wave model)                   kind "regressor"
    EncoderDecoder     the original Transformer: source ids in, target logits out       kind "seq2seq"

`build_model(cfg)` builds whichever kind `cfg.kind` names (models/kinds.py).
"""

from glassformer.models.encoder import Encoder
from glassformer.models.gpt import GPT
from glassformer.models.kinds import MODEL_KINDS, build_model, model_class, register_model_kind
from glassformer.models.regressor import SequenceRegressor
from glassformer.models.seq2seq import EncoderDecoder

__all__ = [
    "GPT",
    "Encoder",
    "EncoderDecoder",
    "SequenceRegressor",
    "MODEL_KINDS",
    "build_model",
    "model_class",
    "register_model_kind",
]
