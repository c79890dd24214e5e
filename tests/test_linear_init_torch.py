"""Chapter 3's claim about a fresh nn.Linear: its outputs have variance 1/3 + 1/(3 d_model).

The chapter derives Var[q_m] = d_model · b²/3 + b²/3 with b = 1/√d_model (PyTorch's uniform
initialisation of the weights and the bias); this test measures it on torch's own layers.
Skipped without torch.
"""

import math

import numpy as np
import pytest


@pytest.mark.parametrize("d_model", [16, 64, 256])
def test_a_fresh_linear_layer_gives_components_of_variance_about_one_third(d_model):
    torch = pytest.importorskip("torch")
    torch.manual_seed(d_model)
    bound = 1 / math.sqrt(d_model)
    derived = d_model * bound**2 / 3 + bound**2 / 3  # the chapter's formula
    measured = []
    with torch.no_grad():
        for _ in range(20):  # average over layers: one draw of W varies by a few percent
            layer = torch.nn.Linear(d_model, d_model)
            assert float(layer.weight.abs().max()) <= bound
            x = torch.randn(4000, d_model)
            measured.append(float(layer(x).var()))
    assert abs(np.mean(measured) - derived) < 0.03 * derived
    assert abs(derived - 1 / 3) < 1 / (3 * d_model) + 1e-12  # "close to 1/3, not 1"
