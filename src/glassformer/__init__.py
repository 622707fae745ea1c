"""glassformer: a Transformer you can see through.

Written by hand in PyTorch, verified against independent references, trained and sampled for
real, and opened up at every tensor. Start with `glassformer.models.GPT` and `glassformer.config`.
"""

__version__ = "0.1.0"
