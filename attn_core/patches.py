"""Image patches as tokens: the input of attention over an image (a vision transformer)."""

from __future__ import annotations

from .validation import as_float_array, check_positive_int


def image_patches(image, patch_size):
    """Cut an image into square patches and flatten each into one row, a token.

    Parameters
    ----------
    image : array_like, shape (H, W)
        One channel; H and W multiples of ``patch_size``.
    patch_size : int, P pixels

    Returns
    -------
    ndarray, shape ((H / P)·(W / P), P·P)
        Row r·(W / P) + c is the patch in grid row r, column c, read row by row.

    Examples
    --------
    >>> image_patches([[0, 1, 2, 3], [4, 5, 6, 7]], 2)  # two patches of 2 × 2
    array([[0., 1., 4., 5.],
           [2., 3., 6., 7.]])
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
