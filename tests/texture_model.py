"""A NumPy model of HIP's texture sampling (CUDA's programming guide, "Texture
Fetching"), for test_cc_textures.py: texel values by format and read mode,
coordinates (normalized, wrap, mirror), texel indices (clamp, border, wrap,
mirror), point sampling at floor(x), linear filtering around x - 0.5 with
weights in 1.8 fixed point, layers, tex1Dfetch and tex2Dgather.  All in float32,
in the order the samplers compute."""

from __future__ import annotations

import numpy as np

F = np.float32
WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
SIGNED, UNSIGNED, FLOAT = 0, 1, 2


def dtype(kind: int, bits: int) -> np.dtype:
    if kind == FLOAT:
        return np.dtype(np.float16 if bits == 16 else np.float32)
    return np.dtype(f"{'i' if kind == SIGNED else 'u'}{bits // 8}")


def values(raw: np.ndarray, kind: int, bits: int, read_float: bool, srgb: bool) -> np.ndarray:
    """The texels as the sampler reads them: floats, or integers read as elements."""
    if kind == FLOAT:
        return raw.astype(F)
    if not read_float:
        return raw.astype(np.int64)
    scale = F(2 ** (bits - (1 if kind == SIGNED else 0)) - 1)
    out = np.maximum(raw.astype(F) / scale, F(-1))
    if srgb:
        c = out[..., :3]
        out[..., :3] = np.where(c <= F(0.04045), c / F(12.92), np.power((c + F(0.055)) / F(1.055), F(2.4)))
    return out


def index(mode: int, i: np.ndarray, n: int) -> np.ndarray:
    """Texel indices after addressing; -1 outside a border."""
    if mode == WRAP:
        return np.mod(i, n)
    if mode == MIRROR:
        i = np.where(i < 0, -1 - i, i)
        i = np.where(i >= n, 2 * n - 1 - i, i)
        return np.clip(i, 0, n - 1)
    if mode == BORDER:
        return np.where((i < 0) | (i >= n), -1, i)
    return np.clip(i, 0, n - 1)


def coordinate(x: np.ndarray, mode: int, n: int, normalized: bool) -> np.ndarray:
    x = x.astype(F)
    if not normalized:
        return x
    if mode == WRAP:
        x = x - np.floor(x)
    elif mode == MIRROR:
        f = np.floor(x)
        frac = x - f
        x = np.where(f.astype(np.int64) & 1, F(1) - frac, frac)
    return (x * F(n)).astype(F)


def sample(
    texels: np.ndarray,
    coords: np.ndarray,
    dims: int,
    layered: bool,
    linear: bool,
    normalized: bool,
    address: list[int],
    border: np.ndarray,
    quantize: bool = True,
) -> np.ndarray:
    """texels: (depth or layers, height, width, channels), as values() gives;
    coords: (n, 4) float32 x, y, z, layer.  Returns (n, channels)."""
    if not normalized:  # wrap and mirror need normalized coordinates: they clamp
        address = [CLAMP if a in (WRAP, MIRROR) else a for a in address]
    slices, height, width, channels = texels.shape
    sizes = [width, height, slices]
    n = len(coords)
    layer = np.clip(coords[:, 3].astype(np.int64), 0, slices - 1) if layered else np.zeros(n, int)
    u = [coordinate(coords[:, d], address[d], sizes[d], normalized) for d in range(dims)]
    float_out = texels.dtype == F
    bc = border[:channels].astype(F if float_out else np.int64)

    def read(idx: list[np.ndarray]) -> np.ndarray:
        full = idx + [np.zeros(n, int)] * (3 - dims)
        if layered:
            full[2] = layer
        outside = np.zeros(n, bool)
        for d in range(dims):
            outside |= full[d] < 0
        got = texels[full[2].clip(0), full[1].clip(0), full[0].clip(0)]
        return np.where(outside[:, None], bc[None, :], got)

    if not linear:
        return read([index(address[d], np.floor(u[d]).astype(np.int64), sizes[d]) for d in range(dims)])
    base = [(u[d] - F(0.5)).astype(F) for d in range(dims)]
    low = [np.floor(b).astype(np.int64) for b in base]
    frac = [(base[d] - low[d].astype(F)).astype(F) for d in range(dims)]
    weight = [np.rint(f * F(256)) / F(256) if quantize else f for f in frac]
    out = np.zeros((n, channels), F)
    for corner in range(1 << dims):
        step = [(corner >> d) & 1 for d in range(dims)]
        w = np.ones(n, F)
        for d in range(dims):
            w = (w * (weight[d] if step[d] else F(1) - weight[d])).astype(F)
        texel = read([index(address[d], low[d] + step[d], sizes[d]) for d in range(dims)])
        out = (out + w[:, None] * texel).astype(F)
    return out


def fetch(texels: np.ndarray, coords: np.ndarray) -> np.ndarray:
    """tex1Dfetch: element int(x) of a linear texture, zero outside."""
    width = texels.shape[2]
    i = coords[:, 0].astype(np.int64)
    inside = (i >= 0) & (i < width)
    got = texels[0, 0, i.clip(0, width - 1)]
    return np.where(inside[:, None], got, np.zeros_like(got))


def gather(
    texels: np.ndarray,
    coords: np.ndarray,
    comp: int,
    normalized: bool,
    address: list[int],
    border: np.ndarray,
) -> np.ndarray:
    """tex2Dgather: channel comp of bilinear's four texels, (0,1) (1,1) (1,0) (0,0)."""
    if not normalized:
        address = [CLAMP if a in (WRAP, MIRROR) else a for a in address]
    _, height, width, _ = texels.shape
    u = coordinate(coords[:, 0], address[0], width, normalized) - F(0.5)
    v = coordinate(coords[:, 1], address[1], height, normalized) - F(0.5)
    i, j = np.floor(u).astype(np.int64), np.floor(v).astype(np.int64)
    out = []
    for dx, dy in ((0, 1), (1, 1), (1, 0), (0, 0)):
        xi, yi = index(address[0], i + dx, width), index(address[1], j + dy, height)
        got = texels[0, yi.clip(0), xi.clip(0), comp]
        out.append(np.where((xi < 0) | (yi < 0), border[comp], got))
    return np.stack(out, axis=1).astype(F)
