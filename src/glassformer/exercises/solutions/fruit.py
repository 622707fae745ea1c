"""Solution: attention by hand on the fruit example (row vectors: a word is a row of E)."""

import math

import torch


def fruit_attention(E, W_Q, W_K, W_V):
    """E (T, d_model), W_Q and W_K (d_model, d_k), W_V (d_model, d_v).
    Returns (weights (T, T), output (T, d_v)):

        Q = E·W_Q   K = E·W_K   V = E·W_V   weights = softmax_rows(Q·Kᵀ / √d_k)   output = weights·V
    """
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V  # (T, d_k), (T, d_k), (T, d_v)
    scores = Q @ K.T / math.sqrt(K.size(-1))  # (T, T): row i = word i's query against every key
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))  # (T, T), largest entry per row is 1
    weights = e / e.sum(dim=-1, keepdim=True)  # (T, T), every row sums to 1
    return weights, weights @ V  # (T, T), (T, d_v)
