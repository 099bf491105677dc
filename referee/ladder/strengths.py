"""Strengths fitted from block results: the model behind the ladder's official standing (``standing``).

Each block of k versions (one deal, k rotations) is broken into its k(k - 1)/2 pairs; in each pair the version
whose block total is lower (a forfeit ranks below every seat that did not forfeit, as in ``standing``) wins, a tie
is half a win to each. The pairs are modelled as Bradley-Terry comparisons whose sharpness depends on the table
size: P(i beats j at a table of k) = sigmoid(c_k (s_i - s_j)), with c_k = 1 at the smallest size the blocks hold
(a block's total sums k games, so its comparisons are sharper at bigger tables). This is rank-breaking of a
Plackett-Luce ranking into pairs (Azari Soufiani, Chen, Parkes & Xia, "Computing parametric ranking models via
rank-breaking", ICML 2014), fitted by maximum composite likelihood: the pairs of one block are not independent,
which changes the fit's variance but not what it estimates (Varin, Reid & Firth, "An overview of composite
likelihood methods", Statistica Sinica 21, 2011). Each version also gets one virtual tie against a phantom of
strength 0, which keeps the fit finite for a version that won or lost every comparison and for a field that is
not connected, and moves a version with hundreds of blocks by a negligible amount; likewise each sharpness is
held near 1 by a penalty (c - 1)²/2, which decides it when the blocks cannot (every pair tied) and is negligible
against thousands of comparisons. Strengths and sharpnesses are fitted together by Newton's method with step
halving.

The fit depends on the blocks only through integer counts per pair of versions and table size (comparisons and half-
wins), so it is exactly a function of the set of blocks, in whatever order they come. The covariance of the
strengths and sharpnesses is the sandwich H⁻¹ B H⁻¹ with the blocks as clusters (B sums, over blocks, the outer
product of the block's score; Liang & Zeger 1986, the Godambe information of a composite likelihood), times G / (G -
1) for G blocks, plus one virtual block per version with a coin flip's variance (so that a few alike blocks do not
give a zero-width interval): it holds whatever the dependence of the comparisons inside a block and whatever the
true shape of a version's luck, and makes the fit's intervals as wide as the blocks say, not as the model says. The
blocks are summed in the order of their ids, so the floating-point result is also the same for any order given.

``fit_strengths`` raises ``ValueError`` on a block of fewer than 2 or more than 4 seats or one version twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

__all__ = ["BlockSeat", "StrengthFit", "fit_strengths", "seats_of"]

#: One seat of a stored block: (version, block total over its rotations, forfeits in the block).
BlockSeat = tuple[int, int, int]

_PRIOR = 1.0  # virtual tied comparisons of each version against a phantom of strength 0
_TOL = 1e-10
_MAX_ROUNDS = 200

Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class StrengthFit:
    """The fitted model: ``versions`` (ids, in increasing order) and their strengths ``s`` with covariance ``cov``,
    the sharpness ``scale[k]`` of each table size the blocks hold, each version's ``blocks`` and the ``opponents``
    it met (distinct versions sharing one of its blocks)."""

    versions: tuple[int, ...]
    s: Floats
    cov: Floats
    scale: Mapping[int, float]
    blocks: Mapping[int, int]
    opponents: Mapping[int, frozenset[int]]
    clusters: int

    def expected(self, field: Sequence[int], weights: Mapping[int, float]) -> tuple[Floats, Floats]:
        """Each version of ``field``'s expected matchpoints against the rest of ``field`` at a table whose size is
        drawn with ``weights`` (normalised over the sizes the fit knows; the others count as the nearest known),
        and the gradient of each figure with respect to the strengths (rows: field; columns: ``versions``)."""
        where = {v: i for i, v in enumerate(self.versions)}
        idx = np.array([where[v] for v in field], dtype=np.int64)
        n = len(idx)
        grad = np.zeros((n, len(self.versions)))
        fig = np.zeros(n)
        if n < 2:
            return np.full(n, 0.5), grad
        known = sorted(self.scale)
        total = 0.0
        per_size: dict[int, float] = {}
        for k, w in weights.items():
            if w > 0:
                near = min(known, key=lambda q: (abs(q - k), q))
                per_size[near] = per_size.get(near, 0.0) + w
                total += w
        s = self.s[idx]
        for k, w in per_size.items():
            c = self.scale[k]
            p = _sigmoid(c * (s[:, None] - s[None, :]))
            np.fill_diagonal(p, 0.0)
            fig += w / total * p.sum(axis=1) / (n - 1)
            d = c * p * (1.0 - p)
            np.fill_diagonal(d, 0.0)
            g = np.zeros((n, n))
            g[np.arange(n), np.arange(n)] = d.sum(axis=1)
            g -= d
            grad[:, idx] += w / total * g / (n - 1)
        return fig, grad


def _sigmoid(x: Floats) -> Floats:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)


@dataclass(slots=True)
class _Size:
    """The blocks of one table size: their versions (as indices) and per pair of seats who won (in halves)."""

    k: int
    seats: NDArray[np.int64]  # (blocks, k) version indices
    halves: NDArray[np.int64]  # (blocks, k, k): 2 if seat a beat seat c, 1 if tied, 0 if lost


def fit_strengths(blocks: Mapping[int, Sequence[BlockSeat]]) -> StrengthFit:
    """Fit the model of the module's docstring to ``blocks`` (block id -> its seats). The linear algebra runs on
    one BLAS thread: its systems are a few hundred rows, and a threaded BLAS on a machine whose cores the bots keep
    busy spins (measured: 55 times slower under a load of 50 on 2 cores)."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _fit(blocks)


def _fit(blocks: Mapping[int, Sequence[BlockSeat]]) -> StrengthFit:
    versions = tuple(sorted({v for seats in blocks.values() for v, _, _ in seats}))
    where = {v: i for i, v in enumerate(versions)}
    m = len(versions)
    by_size: dict[int, list[tuple[list[int], list[int], list[int]]]] = {}
    for bid in sorted(blocks):
        seats = blocks[bid]
        k = len(seats)
        if not 2 <= k <= 4 or len({v for v, _, _ in seats}) != k:
            raise ValueError(f"block {bid} has {k} seats or a version twice: a block seats 2 to 4 versions")
        by_size.setdefault(k, []).append(
            ([where[v] for v, _, _ in seats], [int(f > 0) for _, _, f in seats], [t for _, t, _ in seats])
        )
    sizes = []
    for k in sorted(by_size):
        rows = by_size[k]
        seat_ix = np.array([r[0] for r in rows], dtype=np.int64).reshape(len(rows), k)
        lost = np.array([r[1] for r in rows], dtype=np.int64).reshape(len(rows), k)
        total = np.array([r[2] for r in rows], dtype=np.int64).reshape(len(rows), k)
        fa, fc = lost[:, :, None], lost[:, None, :]
        ta, tc = total[:, :, None], total[:, None, :]
        beats = (fa < fc) | ((fa == fc) & (ta < tc))
        ties = (fa == fc) & (ta == tc)
        halves = 2 * beats.astype(np.int64) + ties.astype(np.int64)
        idx = np.arange(k)
        halves[:, idx, idx] = 0
        sizes.append(_Size(k, seat_ix, halves))
    # sufficient statistics per size: comparisons n[i, j] and half-wins w[i, j] of i over j (integers: exact)
    counts: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []
    for z in sizes:
        n = np.zeros((m, m), dtype=np.int64)
        w = np.zeros((m, m), dtype=np.int64)
        for a in range(z.k):
            for c in range(z.k):
                if a != c:
                    np.add.at(n, (z.seats[:, a], z.seats[:, c]), 1)
                    np.add.at(w, (z.seats[:, a], z.seats[:, c]), z.halves[:, a, c])
        counts.append((n, w))
    scale = np.ones(len(sizes))
    s = np.zeros(m)
    if not m:
        return StrengthFit((), s, np.zeros((0, 0)), {}, {}, {}, 0)
    for _ in range(_MAX_ROUNDS):
        s_new, scale_new = _step(s, scale, counts)
        moved = max(float(np.max(np.abs(s_new - s))), float(np.max(np.abs(scale_new - scale))))
        s, scale = s_new, scale_new
        if moved < _TOL:
            break
    q = len(sizes) - 1  # the sharpness of every size but the first is a parameter too
    _, hessian = _gradient(s, scale, counts)
    meat = np.zeros((m + q, m + q))
    clusters = 0
    for size_at, (z, sharp) in enumerate(zip(sizes, scale, strict=True)):
        sc = float(sharp)
        clusters += len(z.seats)
        sv = s[z.seats]  # (blocks, k)
        x = sv[:, :, None] - sv[:, None, :]
        p = _sigmoid(sc * x)  # p[b, a, c]: seat a beats seat c
        resid = z.halves / 2.0 - p
        idx = np.arange(z.k)
        resid[:, idx, idx] = 0.0
        u = sc * resid.sum(axis=2)  # (blocks, k): each seat's score in the block
        cols = [z.seats[:, a] for a in range(z.k)]
        scores = [u[:, a] for a in range(z.k)]
        if size_at > 0:  # the block's score for its size's sharpness
            cols.append(np.full(len(z.seats), m + size_at - 1, dtype=np.int64))
            scores.append((resid * x).sum(axis=(1, 2)) / 2)
        for ca, ua in zip(cols, scores, strict=True):
            for cb, ub in zip(cols, scores, strict=True):
                np.add.at(meat, (ca, cb), ua * ub)
    if clusters > 1:
        meat *= clusters / (clusters - 1)
    # one virtual block per version whose score varies as a fair coin's (as the phantom tie): a version whose few
    # blocks all came out alike gets an interval, not a point; negligible against hundreds of blocks
    meat[np.arange(m), np.arange(m)] += _PRIOR * 0.25
    bread = np.linalg.pinv(hessian, hermitian=True)
    cov = (bread @ meat @ bread)[:m, :m]
    played: dict[int, int] = dict.fromkeys(versions, 0)
    met: dict[int, set[int]] = {v: set() for v in versions}
    for seats in blocks.values():
        ids = [v for v, _, _ in seats]
        for v in ids:
            played[v] += 1
            met[v].update(o for o in ids if o != v)
    return StrengthFit(
        versions,
        s,
        (cov + cov.T) / 2,
        {z.k: float(c) for z, c in zip(sizes, scale, strict=True)},
        played,
        {v: frozenset(o) for v, o in met.items()},
        clusters,
    )


def _loglik(s: Floats, scale: Floats, counts: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]]) -> float:
    total = float(np.sum(_PRIOR * (-np.logaddexp(0.0, -s) - np.logaddexp(0.0, s)) / 2))
    total -= float(np.sum(_PRIOR * (scale[1:] - 1.0) ** 2)) / 2
    for c, (n, w) in zip(scale, counts, strict=True):
        x = c * (s[:, None] - s[None, :])
        total += float(np.sum(w / 2.0 * -np.logaddexp(0.0, -x) + (n - w / 2.0) * -np.logaddexp(0.0, x))) / 2
    return total


def _gradient(
    s: Floats, scale: Floats, counts: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]]
) -> tuple[Floats, Floats]:
    """The gradient of the log-likelihood in (s, the sharpness of every size but the first) and the observed
    information (minus its Hessian), with the prior."""
    m, q = len(s), len(scale) - 1
    ps = _sigmoid(s)
    g = np.zeros(m + q)
    h = np.zeros((m + q, m + q))
    g[:m] = _PRIOR * (0.5 - ps)
    h[:m, :m] = np.diag(_PRIOR * ps * (1 - ps))
    x = s[:, None] - s[None, :]
    for at, (c, (n, w)) in enumerate(zip(scale, counts, strict=True)):
        p = _sigmoid(c * x)
        r = w / 2.0 - n * p
        d = n * p * (1 - p)
        g[:m] += c * r.sum(axis=1)
        h[:m, :m] += c * c * (np.diag(d.sum(axis=1)) - d)
        if at > 0:
            j = m + at - 1
            g[j] = float(np.sum(r * x)) / 2 - _PRIOR * (c - 1.0)
            h[j, j] = float(np.sum(d * x * x)) / 2 + _PRIOR
            cross = -r.sum(axis=1) + c * (d * x).sum(axis=1)
            h[:m, j] = cross
            h[j, :m] = cross
    return g, h


def _step(
    s: Floats, scale: Floats, counts: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]]
) -> tuple[Floats, Floats]:
    """One Newton step in (s, sharpness), halved until the log-likelihood does not fall; where the joint
    information is not positive definite (far from the optimum), a step in s alone."""
    m = len(s)
    g, h = _gradient(s, scale, counts)
    try:
        np.linalg.cholesky(h)
        step = np.linalg.solve(h, g)
    except np.linalg.LinAlgError:
        step = np.zeros(len(g))
        step[:m] = np.linalg.solve(h[:m, :m], g[:m])
    base = _loglik(s, scale, counts)
    t = 1.0
    while t > 1e-6:
        s_try = s + t * step[:m]
        scale_try = scale.copy()
        scale_try[1:] = np.clip(scale[1:] + t * step[m:], 0.05, 20.0)
        if _loglik(s_try, scale_try, counts) >= base - 1e-12:
            return np.asarray(s_try, dtype=np.float64), scale_try
        t /= 2
    return s, scale


def seats_of(rows: Iterable[tuple[int, int, int, int]]) -> dict[int, list[BlockSeat]]:
    """Block id -> its seats, from ``(block, version, total, forfeits)`` rows in any order (a block's seats in
    version order)."""
    out: dict[int, list[BlockSeat]] = {}
    for block, v, total, forfeits in rows:
        out.setdefault(block, []).append((v, total, forfeits))
    for seats in out.values():
        seats.sort()
    return out
