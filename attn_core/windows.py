"""Sliding-window attention (슬라이딩 윈도 어텐션): each query sees only the W newest keys.

Shape legend: L queries, the *last* L of S positions (bottom-right aligned, as a decode step
against a cache); window W. The ring-buffer cache that holds only W keys is
:class:`attn_core.KVCache` with ``window=W``.
"""

from __future__ import annotations

import numpy as np

from .validation import check_positive_int, check_size


def sliding_window_mask(L, S, window):
    """Boolean band mask: query i sees key j when ``0 <= (S - L + i) - j < window``.

    Query i sits at position S − L + i (the queries are the newest L of S positions, as in
    :func:`attn_core.causal_mask_lower_right`), and sees itself and the ``window − 1`` keys
    before it: Hugging Face's ``q − k < W``.

    Parameters
    ----------
    L, S : int
        Queries (the newest L positions) and keys (every position, theirs included), L <= S.
    window : int >= 1
        W: how many keys a query sees at most, itself included.

    Returns
    -------
    ndarray of bool, shape (L, S)
        True = may attend. ``window >= S`` gives :func:`attn_core.causal_mask_lower_right`.

    Notes
    -----
    Hugging Face's Mistral keeps W keys (``q − k < W``), as here. Mistral 7B's paper
    (Jiang et al., 2023) words the window as "positions i − W to i", W + 1 keys, and so does
    its reference code in prefill: ``one_file_ref.py`` of mistralai/mistral-inference bands
    the causal mask with ``torch.triu(mask, diagonal=-sliding_window)``, which keeps
    ``q − k <= W``. Its ring-buffer cache holds W keys (and values), so a decode step sees W:
    ``window=W + 1`` here reproduces its prefill, ``window=W`` its decode steps.
    The receptive field grows by W − 1 positions a layer: k layers see k(W − 1) + 1 tokens.

    Examples
    --------
    >>> sliding_window_mask(4, 4, 2).astype(int)  # itself and the key before it
    array([[1, 0, 0, 0],
           [1, 1, 0, 0],
           [0, 1, 1, 0],
           [0, 0, 1, 1]])
    >>> sliding_window_mask(1, 5, 3).astype(int)  # one decode step: the 3 newest keys
    array([[0, 0, 1, 1, 1]])
    """
    L, S = check_positive_int(L, "L", minimum=0), check_positive_int(S, "S", minimum=0)
    window = check_positive_int(window, "window")
    if L > S:
        raise ValueError(
            f"L must be <= S: the L queries are the last L of the S key positions, "
            f"got L = {L}, S = {S}"
        )
    check_size((L, S), bool, "the sliding-window mask (L, S)", f"L = {L} and S = {S}")
    query_at = np.arange(S - L, S)[:, None]  # [L, 1]: each query's own position
    distance = query_at - np.arange(S)  # [L, 1] - [S] -> [L, S]: how far back key j is
    return (distance >= 0) & (distance < window)
