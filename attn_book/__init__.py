"""attn_book: the machinery of *Attention by Hand* above the maths of :mod:`attn_core`.

- :mod:`attn_book.plots`: matplotlib figures of the chapters.
- :mod:`attn_book.widgets`: the interactive figures (anywidget).
- :mod:`attn_book.exercises`: the self-checking exercises, one module per chapter.
- :mod:`attn_book.tables`, :mod:`attn_book.prose`: numbers as tables and as words.

Every formula lives in :mod:`attn_core`; this package draws, checks and formats.
"""
