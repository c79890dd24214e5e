# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (ch-pytorch-buffers)=
# # Appendix: why the listing's scale belongs in a registered buffer
#
# This page goes with [Chapter 5](05_projections.ipynb#the-explainer-s-simpleselfattention-in-numpy),
# which runs the explainer's PyTorch `SimpleSelfAttention` beside its numpy twin. It is about
# PyTorch, not about attention: the layer computes the right numbers, but one line of it
# stores its scale where PyTorch does not look.
#
# A module converts and moves only what it has *registered*: its parameters (`nn.Parameter`,
# learned) and its buffers (버퍼, not learned). The listing's `self.scale` is a plain tensor
# attribute, so `.double()` and `.half()` leave it float32, `.to(device)` leaves it on the
# CPU, and `state_dict()`, what `torch.save(model.state_dict())` writes, does not contain it.
# After `.half()` the float32 scale turns the scores float32, and their product with the
# float16 values raises an error; on PyTorch's data-less `meta` device the forward pass fails.
# The fix is one line in `__init__`:
#
# ```python
# self.register_buffer("scale", torch.sqrt(torch.tensor([float(embed_dim)])))
# ```
#
# (`persistent=False` keeps out of `state_dict` a buffer that the configuration rebuilds:
# Hugging Face's `GPT2Attention` registers its causal mask,
# [Chapter 7](07_heads_and_masks.ipynb), that way in the later transformers 4.x releases;
# earlier ones saved it, which is why old GPT-2 checkpoints hold `attn.bias` keys. nanoGPT
# registers a mask only when PyTorch lacks `scaled_dot_product_attention` (before 2.0), as an
# ordinary persistent buffer, and its `from_pretrained` filters the `.attn.bias` keys out.) For a
# constant like $\sqrt d$ a Python float, `math.sqrt(embed_dim)`, is simpler still, and it is
# what `attn_core` uses. `attn_book.explainer_torch.BufferedSelfAttention` is the listing with
# the one line changed; the project's tests (`tests/test_simple_self_attention_torch.py`)
# check each of these claims where PyTorch is installed (they are skipped without it, and
# pass with PyTorch 2.13).
#
# Where PyTorch is installed, the cell below converts both layers with `.double()` and prints
# the dtype of each one's weights and scale, and whether the scale is in its `state_dict`
# (without PyTorch it says so and skips):

# %%
from attn_book import explainer_torch

# %% tags=["nbval-ignore-output"]
if explainer_torch.torch is None:
    print("PyTorch is not installed here: the comparison is skipped.")
else:
    for layer_class in (explainer_torch.SimpleSelfAttention, explainer_torch.BufferedSelfAttention):
        layer = layer_class(4).double()
        print(f"{layer_class.__name__}: weights {layer.query.weight.dtype}", end="")
        print(f", scale {layer.scale.dtype}", end="")
        print(f", scale in state_dict: {'scale' in layer.state_dict()}")
