"""A NumPy model of HIP's texture sampling (CUDA's programming guide, "Texture
Fetching"), for test_cc_textures.py: texel values by format and read mode,
coordinates (normalized, wrap, mirror), texel indices (clamp, border, wrap,
mirror), point sampling at floor(x), linear filtering around x - 0.5 with
weights in 1.8 fixed point, layers, tex1Dfetch and tex2Dgather.

Where CUDA's guide is silent, the rules are the H200's, measured there
(benchmarks/RESULTS.md): normalized coordinates keep 21 fraction bits; a
weight's 1.8 fixed point rounds half up, and rounding up to a whole texel moves
to the next one; bilinear's corner weights are whole 1/256ths, the far corner's
A*B/256 rounded half up and the others what is left of A, B and 1; a layer is
an unsigned index, clamped to the last layer."""

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


COORDINATE_BITS = 21  # fraction bits of a normalized coordinate


def coordinate(x: np.ndarray, mode: int, n: int, normalized: bool) -> np.ndarray:
    """The texel coordinate (float64, exact) of float32 coordinates ``x``."""
    x = x.astype(F)
    if not normalized:
        return x.astype(np.float64)
    if mode == WRAP:
        x = x - np.floor(x)
    elif mode == MIRROR:
        f = np.floor(x)
        frac = x - f
        x = np.where(f.astype(np.int64) & 1, F(1) - frac, frac)
    fixed = np.floor(x.astype(np.float64) * 2**COORDINATE_BITS)
    return fixed / 2**COORDINATE_BITS * n


def cell(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower texel around u - 0.5 and the weight of the next, in 256ths
    (rounded half up; 256 moves to the next texel, weight 0)."""
    base = u - 0.5
    low = np.floor(base).astype(np.int64)
    q = np.floor((base - low) * 256 + 0.5).astype(np.int64)
    return low + (q >> 8), q & 255


def corner_weights(q: list[np.ndarray]) -> list[np.ndarray]:
    """The weights (in 256ths) of the 2**len(q) corners, corner k stepping
    along dimension d where bit d of k is set."""
    if len(q) == 1:
        return [256 - q[0], q[0]]
    a, b = q[0], q[1]
    far = (a * b + 128) >> 8
    two = [256 - a - b + far, a - far, b - far, far]
    if len(q) == 2:
        return two
    c = q[2]
    upper = [(w * c + 128) >> 8 for w in two]
    return [w - x for w, x in zip(two, upper, strict=True)] + upper


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
    layer = np.minimum(coords[:, 3].astype(np.int64).astype(np.uint64), slices - 1).astype(np.int64)
    layer = layer if layered else np.zeros(n, int)
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
    if not quantize:  # weights as exact products, for the test that quantization matters
        base = [u[d] - 0.5 for d in range(dims)]
        low = [np.floor(b).astype(np.int64) for b in base]
        frac = [base[d] - low[d] for d in range(dims)]
        weights = [np.ones(n) for _ in range(1 << dims)]
        for k in range(1 << dims):
            for d in range(dims):
                weights[k] = weights[k] * (frac[d] if (k >> d) & 1 else 1 - frac[d])
    else:
        cells = [cell(u[d]) for d in range(dims)]
        low = [c[0] for c in cells]
        weights = [w / 256 for w in corner_weights([c[1] for c in cells])]
    out = np.zeros((n, channels), np.float64)
    for k in range(1 << dims):
        texel = read([index(address[d], low[d] + ((k >> d) & 1), sizes[d]) for d in range(dims)])
        out = out + weights[k][:, None] * texel
    return out.astype(F)


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
    i = cell(coordinate(coords[:, 0], address[0], width, normalized))[0]
    j = cell(coordinate(coords[:, 1], address[1], height, normalized))[0]
    out = []
    for dx, dy in ((0, 1), (1, 1), (1, 0), (0, 0)):
        xi, yi = index(address[0], i + dx, width), index(address[1], j + dy, height)
        got = texels[0, yi.clip(0), xi.clip(0), comp]
        out.append(np.where((xi < 0) | (yi < 0), border[comp], got))
    return np.stack(out, axis=1).astype(F)
