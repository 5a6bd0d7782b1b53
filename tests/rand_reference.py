"""Reference generators for the RAND tests, written from the algorithms' papers and
cuRAND's documented seeding, independently of hipkit's C++ (and of its table script):
Philox4x32-10 vectorized in NumPy (NumPy's own Philox is the 4x64 variant), XORWOW and
MRG32k3a in Python integers, with their jumps as matrix powers computed here."""

from __future__ import annotations

import functools
import warnings

import numpy as np

MASK32 = 0xFFFFFFFF
U32 = np.uint64(MASK32)

# ---------------------------------------------------------------- Philox4x32-10

PHILOX_M = (0xD2511F53, 0xCD9E8D57)
PHILOX_W = (0x9E3779B9, 0xBB67AE85)


def philox_block(counter: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """Philox4x32-10 of counters (n, 4) uint32 words (low word first) under ``key``:
    (n, 4) uint32."""
    c = [counter[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(10):
        p0 = np.uint64(PHILOX_M[0]) * c[0]
        p1 = np.uint64(PHILOX_M[1]) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & U32, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & U32]
        k0 = (k0 + np.uint64(PHILOX_W[0])) & U32
        k1 = (k1 + np.uint64(PHILOX_W[1])) & U32
    return np.stack(c, axis=1).astype(np.uint32)


def philox_words(seed: int, subsequence: int, offset: int, n: int) -> np.ndarray:
    """Numbers offset .. offset + n - 1 of the Philox stream (seed, subsequence): word
    j % 4 of the block at counter (subsequence << 64) + j // 4 (offset + n < 2^64)."""
    j = np.uint64(offset) + np.arange(n, dtype=np.uint64)
    block = j // np.uint64(4)
    counters = np.stack(
        [
            block & U32,
            block >> np.uint64(32),
            np.full(n, subsequence & MASK32),
            np.full(n, subsequence >> 32),
        ],
        axis=1,
    ).astype(np.uint32)
    out = philox_block(counters, (seed & MASK32, seed >> 32))
    return out[np.arange(n), (j % np.uint64(4)).astype(np.int64)]


# ---------------------------------------------------------------- XORWOW


def xorwow_seeded(seed: int) -> tuple[int, list[int]]:
    """(d, v) of cuRAND's XORWOW for ``seed`` at subsequence 0, offset 0."""
    t0 = (1099087573 * ((seed & MASK32) ^ 0xAAD26B49)) & MASK32
    t1 = (2591861531 * ((seed >> 32) ^ 0xF7DCEFDD)) & MASK32
    d = (6615241 + t1 + t0) & MASK32
    v = [
        (123456789 + t0) & MASK32,
        362436069 ^ t0,
        (521288629 + t1) & MASK32,
        88675123 ^ t1,
        (5783321 + t0) & MASK32,
    ]
    return d, v


def xorwow_next(d: int, v: list[int]) -> tuple[int, list[int], int]:
    t = v[0] ^ (v[0] >> 2)
    new = (v[4] ^ (v[4] << 4) ^ t ^ (t << 1)) & MASK32
    d = (d + 362437) & MASK32
    return d, [*v[1:], new], (new + d) & MASK32


def _bits(v: list[int]) -> np.ndarray:
    return np.array([(v[i // 32] >> (i % 32)) & 1 for i in range(160)], np.int64)


def _words(bits: np.ndarray) -> list[int]:
    return [int(sum(int(bits[32 * w + k]) << k for k in range(32))) for w in range(5)]


@functools.cache
def _xorwow_step_matrix() -> np.ndarray:
    """160 x 160 over GF(2): column c of the step's action, x' = M @ x."""
    m = np.zeros((160, 160), np.int64)
    for c in range(160):
        v = [0] * 5
        v[c // 32] = 1 << (c % 32)
        m[:, c] = _bits(xorwow_next(0, v)[1])
    return m


@functools.cache
def _xorwow_power_of_two(k: int) -> np.ndarray:
    return (
        _xorwow_step_matrix() if k == 0 else (_xorwow_power_of_two(k - 1) @ _xorwow_power_of_two(k - 1)) % 2
    )


def xorwow_jump(v: list[int], steps: int) -> list[int]:
    """v after ``steps`` steps (d apart), by squaring the step's matrix."""
    x = _bits(v)
    for k in range(steps.bit_length()):
        if steps >> k & 1:
            x = (_xorwow_power_of_two(k) @ x) % 2
    return _words(x)


def xorwow_words(seed: int, subsequence: int, offset: int, n: int) -> list[int]:
    d, v = xorwow_seeded(seed)
    v = xorwow_jump(v, (subsequence << 67) + offset)
    d = (d + 362437 * offset) & MASK32
    out = []
    for _ in range(n):
        d, v, x = xorwow_next(d, v)
        out.append(x)
    return out


# ---------------------------------------------------------------- MRG32k3a

MRG_M1, MRG_M2 = 4294967087, 4294944443
MRG_A1 = ((0, 1, 0), (0, 0, 1), (MRG_M1 - 810728, 1403580, 0))
MRG_A2 = ((0, 1, 0), (0, 0, 1), (MRG_M2 - 1370589, 0, 527612))


def _mat_pow_apply(a, s: list[int], e: int, m: int) -> list[int]:
    def mul(x, y):
        return tuple(tuple(sum(x[i][k] * y[k][j] for k in range(3)) % m for j in range(3)) for i in range(3))

    result = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    while e:
        if e & 1:
            result = mul(result, a)
        a = mul(a, a)
        e >>= 1
    return [sum(result[i][j] * s[j] for j in range(3)) % m for i in range(3)]


def mrg_seeded(seed: int, subsequence: int, offset: int) -> tuple[list[int], list[int]]:
    s1, s2 = [12345] * 3, [12345] * 3
    if seed:
        x1, x2 = (seed & MASK32) ^ 0x55555555, (seed >> 32) ^ 0xAAAAAAAA
        s1 = [x1 * 12345 % MRG_M1, x2 * 12345 % MRG_M1, x1 * 12345 % MRG_M1]
        s2 = [x2 * 12345 % MRG_M2, x1 * 12345 % MRG_M2, x2 * 12345 % MRG_M2]
    steps = ((subsequence % 2**51) << 76) + offset
    return _mat_pow_apply(MRG_A1, s1, steps, MRG_M1), _mat_pow_apply(MRG_A2, s2, steps, MRG_M2)


def mrg_values(seed: int, subsequence: int, offset: int, n: int) -> list[int]:
    """The combined values in (0, m1] (their doubles are exact)."""
    s1, s2 = mrg_seeded(seed, subsequence, offset)
    out = []
    for _ in range(n):
        p1 = (1403580 * s1[1] - 810728 * s1[0]) % MRG_M1
        p2 = (527612 * s2[2] - 1370589 * s2[0]) % MRG_M2
        s1, s2 = [s1[1], s1[2], p1], [s2[1], s2[2], p2]
        out.append(p1 - p2 if p1 > p2 else p1 - p2 + MRG_M1)
    return out


# ---------------------------------------------------------------- conversions


def uniform(words) -> np.ndarray:
    """cuRAND's float uniform of 32-bit numbers: x 2^-32 + 2^-33, rounded to float."""
    x = np.asarray(words, np.uint32).astype(np.float32)
    return x * np.float32(2.0**-32) + np.float32(2.0**-33)


def uniform_double2(x, y) -> np.ndarray:
    z = np.asarray(x, np.uint64) ^ (np.asarray(y, np.uint64) << np.uint64(21))
    return z.astype(np.float64) * 2.0**-53 + 2.0**-54


def box_muller(x, y) -> tuple[np.ndarray, np.ndarray]:
    """The float pair of words x, y (to the platform's rounding of log, sin, cos)."""
    u = uniform(x).astype(np.float64)
    angle = (np.asarray(y, np.uint32).astype(np.float32) * np.float32(2.0**-32 * 6.2831855)).astype(
        np.float64
    )
    r = np.sqrt(-2 * np.log(u))
    return r * np.sin(angle), r * np.cos(angle)


def box_muller_double(x0, x1, y0, y1) -> tuple[np.ndarray, np.ndarray]:
    u = uniform_double2(x0, x1)
    zy = np.asarray(y0, np.uint64) ^ (np.asarray(y1, np.uint64) << np.uint64(21))
    angle = zy.astype(np.float64) * 2.0**-52 + 2.0**-53
    r = np.sqrt(-2 * np.log(u))
    return r * np.sin(np.pi * angle), r * np.cos(np.pi * angle)


# ---------------------------------------------------------------- SOBOL32


def sobol_points(dimensions: int, offset: int, m: int) -> np.ndarray:
    """Points offset .. offset + m - 1 of SOBOL32's first ``dimensions`` dimensions, as
    (dimensions, m) 32-bit words: SciPy's unscrambled Sobol sequence (Joe and Kuo's
    numbers, Gray-code order), independent of hipkit's table and its expansion."""
    from scipy.stats import qmc

    sequence = qmc.Sobol(dimensions, scramble=False, bits=32)
    if offset:
        sequence.fast_forward(offset)
    with warnings.catch_warnings():  # a count that is not a power of 2 is what is tested
        warnings.filterwarnings("ignore", "The balance properties", UserWarning)
        return np.ldexp(sequence.random(m), 32).astype(np.uint32).T


def sobol_normal(words) -> np.ndarray:
    """cuRAND's normal of a quasi-random 32-bit point (double precision): the inverse
    normal distribution of its uniform, the upper half mirrored onto the lower (point 0
    the lowest)."""
    from scipy.special import erfcinv

    x = np.asarray(words, np.uint32).astype(np.int64)
    upper = x > 2**31
    x = np.where(upper, 2**32 - 1 - x, x)
    p = x * 2.0**-32 + 2.0**-33
    return np.where(upper, 1.0, -1.0) * np.sqrt(2.0) * erfcinv(2 * p)


# ---------------------------------------------------------------- MTGP32

MTGP_WORDS, MTGP_RING = 351, 1024
MTGP_HOST_STATES, MTGP_ROUND = 192, 256  # cuRAND's host generator's


@functools.cache
def mtgp32_sets():
    """The 200 parameter sets (hipkit's table as data; the table test compares it with
    cuRAND's)."""
    from hipkit.tables import make_mtgp_tables

    return make_mtgp_tables.written_sets()


def mtgp32_seeded(index: int, seed: int) -> np.ndarray:
    """Parameter set ``index``'s state words for a 32-bit seed (Saito and Matsumoto's
    initialization: a byte of the hidden seed everywhere, then Mersenne Twister's
    recurrence from the seed and the hidden seed), in a ring of 1024 words."""
    p = mtgp32_sets()[index]
    hidden = (p.tbl[4] ^ (p.tbl[8] << 16)) & MASK32
    fill = (hidden + (hidden >> 16)) & MASK32
    fill = (fill + (fill >> 8)) & 0xFF
    s = [fill * 0x01010101] * MTGP_WORDS
    s[0], s[1] = seed & MASK32, hidden
    for i in range(1, MTGP_WORDS):
        s[i] ^= (1812433253 * (s[i - 1] ^ (s[i - 1] >> 30)) + i) & MASK32
    ring = np.zeros(MTGP_RING, np.uint64)
    ring[:MTGP_WORDS] = s
    return ring


def mtgp32_rounds(index: int, seed: int, threads: int, rounds: int) -> np.ndarray:
    """(rounds, threads) numbers of a state of set ``index`` from ``seed``, made by a block
    of ``threads``: in a round thread t's number comes of words t, t + 1 and t + pos
    (from the state's offset), written back at t + 351 and tempered with t + pos - 1."""
    p = mtgp32_sets()[index]
    s = mtgp32_seeded(index, seed)
    tbl, tmp = np.array(p.tbl, np.uint64), np.array(p.tmp_tbl, np.uint64)
    at, out = np.arange(threads), []
    for _ in range(rounds):
        x = (s[at % MTGP_RING] & np.uint64(p.mask)) ^ s[(at + 1) % MTGP_RING]
        x = (x ^ (x << np.uint64(p.sh1))) & U32
        y = x ^ (s[(at + p.pos) % MTGP_RING] >> np.uint64(p.sh2))
        y ^= tbl[(y & np.uint64(15)).astype(np.intp)]
        s[(at + MTGP_WORDS) % MTGP_RING] = y
        u = s[(at + p.pos - 1) % MTGP_RING]
        u ^= u >> np.uint64(16)
        u ^= u >> np.uint64(8)
        out.append((y ^ tmp[(u & np.uint64(15)).astype(np.intp)]).astype(np.uint32))
        at = at + threads
    return np.array(out)


def mtgp32_kernel_seed(seed: int, i: int) -> int:
    """The 32-bit seed of state i of hiprandMakeMTGP32KernelState (cuRAND's)."""
    return ((seed ^ (seed >> 32)) + i + 1) & MASK32


def mtgp32_host(seed: int, n: int) -> np.ndarray:
    """The first n numbers of the host API's MTGP32 generator (cuRAND's layout, seen on
    the H200): round r of state i (seeded as the kernel states are) is numbers
    256 (192 r + i) onwards, the states taking their rounds in turn."""
    chunks = -(-n // MTGP_ROUND)
    rounds = -(-chunks // MTGP_HOST_STATES)
    made = {
        i: mtgp32_rounds(i, mtgp32_kernel_seed(seed, i), MTGP_ROUND, rounds)
        for i in range(min(chunks, MTGP_HOST_STATES))
    }
    out = [made[c % MTGP_HOST_STATES][c // MTGP_HOST_STATES] for c in range(chunks)]
    return np.concatenate(out)[:n]
