"""Image patches as tokens: the input of attention over an image (a vision transformer).

Shape legend: image (H, W) of one channel; patches (N, P·P) with N = (H/P)·(W/P),
numbered row by row over the grid of patches.
"""

from __future__ import annotations

from .validation import as_float_array, check_positive_int


def image_patches(image, patch_size):
    """Cut an image into square patches and flatten each into one row, a token.

    Parameters
    ----------
    image : array_like, shape (H, W)
        One channel; H and W must be multiples of ``patch_size``.
    patch_size : int
        P, the side of a patch in pixels.

    Returns
    -------
    ndarray, shape (N, P * P)
        Row ``r * (W // P) + c`` is the patch in grid row ``r``, column ``c``, its
        pixels read row by row.

    Raises
    ------
    ValueError
        If ``image`` is not 2-D or its sides are not multiples of ``patch_size``.

    Examples
    --------
    >>> import numpy as np
    >>> image_patches(np.arange(16).reshape(4, 4), 2)
    array([[ 0.,  1.,  4.,  5.],
           [ 2.,  3.,  6.,  7.],
           [ 8.,  9., 12., 13.],
           [10., 11., 14., 15.]])
    """
    image = as_float_array(image, "image")
    size = check_positive_int(patch_size, "patch_size")
    if image.ndim != 2 or image.shape[0] % size or image.shape[1] % size:
        raise ValueError(
            f"image must be (H, W) with H and W multiples of patch_size = {size}, "
            f"got shape {image.shape}"
        )
    rows, cols = image.shape[0] // size, image.shape[1] // size
    grid = image.reshape(rows, size, cols, size)  # [rows, P, cols, P]
    return grid.swapaxes(1, 2).reshape(rows * cols, size * size)  # [N, P·P]
