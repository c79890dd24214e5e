# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The dot product (내적) as similarity
#
# After this chapter you can score how well a query (쿼리) matches a key (키) with a dot product.

# %%
from myst_nb import glue

import attn_core as ac

# %% [markdown]
# The seed article's query and keys:

# %%
example = ac.seed_example()
scores = ac.dot_scores(example.query, example.keys)
glue("ch1_scores", ", ".join(f"{s:g}" for s in scores))
scores

# %% [markdown]
# The scores are {glue:text}`ch1_scores`.
