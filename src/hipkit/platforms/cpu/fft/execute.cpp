// hipkit's CPU FFT engine: a plan's transform, one pass per axis (plan.h).
//
// A pass takes every line of the array along one axis (of every batch), gathers it
// into a contiguous buffer, transforms it and scatters it: the last axis first, from
// the input to the output, then the other axes in the output, in place.  C2R runs
// the other axes first, from the input into a buffer of its own (hipFFT may overwrite
// a C2R input; this engine never does), then the real lines from there to the output.
// The lines of a pass are divided among the device's workers (OpenMP threads), and
// the last pass applies the scale factor.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "plan.h"

namespace hkfft {
namespace {

// The offset of line `line` along axis k of a side: its other coordinates, then batch.
long long line_base(const Side& s, int rank, int k, long long line) {
  long long offset = 0;
  for (int j = rank - 1; j >= 0; --j) {
    if (j == k) continue;
    long long c = line % s.lengths[j];
    line /= s.lengths[j];
    offset += c * s.stride[j];
  }
  return offset + line * s.dist;
}

long long line_count(const Side& s, int rank, int k, long long batch) {
  long long count = batch;
  for (int j = 0; j < rank; ++j)
    if (j != k) count *= s.lengths[j];
  return count;
}

// Runs line(i, buffer) for each of `count` lines (or blocks of lines), on up to
// `workers` threads, each with a buffer of `elems` E of its own (aligned for E).
template <typename E, typename F>
void for_lines(int workers, long long count, size_t elems, F line) {
  const int threads = int(std::min<long long>(workers, count));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::vector<E> buffer(elems);
#pragma omp for schedule(static)
    for (long long i = 0; i < count; ++i) line(i, buffer.data());
  }
}

template <typename T>
struct Runner {
  const Plan& p;
  const Axes<T>& axes;

  // A complex pass along axis k: src (side a) -> dst (side b), scaled by s.  Lines go
  // Lanes<T>::count at a time, one in each lane of a vector (the butterflies compute
  // them all at once), gathered and scattered point by point across the block; with
  // fewer lines than lanes, one at a time.
  template <bool Inv>
  void complex_pass(int k, const cplx<T>* src, const Side& a, cplx<T>* dst, const Side& b,
                    T s) const {
    using V = typename Lanes<T>::type;
    constexpr long long L = Lanes<T>::count;
    const Plan1D<T>& plan = *axes.complex[k];
    const long long n = plan.size();
    const long long sa = a.stride[k], sb = b.stride[k];
    const long long lines = line_count(b, p.rank, k, p.batch);
    if (lines < L) {
      for_lines<cplx<T>>(p.workers, lines, 2 * size_t(n) + plan.scratch_size(), [&](long long i, cplx<T>* buf) {
        const cplx<T>* from = src + line_base(a, p.rank, k, i);
        cplx<T>* to = dst + line_base(b, p.rank, k, i);
        for (long long j = 0; j < n; ++j) buf[j] = from[j * sa];
        plan.template run<Inv>(buf, buf + n, buf + 2 * n);
        for (long long j = 0; j < n; ++j) to[j * sb] = s == T(1) ? buf[n + j] : scale(buf[n + j], s);
      });
      return;
    }
    const long long blocks = (lines + L - 1) / L;
    for_lines<cplx<V>>(p.workers, blocks, 2 * size_t(n) + plan.scratch_size(), [&](long long first, cplx<V>* buf) {
      const long long count = std::min(L, lines - first * L);
      const cplx<T>* from[L];
      cplx<T>* to[L];
      for (long long v = 0; v < L; ++v) {  // a short block's spare lanes repeat its last line
        const long long line = first * L + std::min(v, count - 1);
        from[v] = src + line_base(a, p.rank, k, line);
        to[v] = dst + line_base(b, p.rank, k, line);
      }
      cplx<V>* in = buf;
      cplx<V>* out = buf + n;
      for (long long j = 0; j < n; ++j)
        for (long long v = 0; v < L; ++v) {
          in[j].re[v] = from[v][j * sa].re;
          in[j].im[v] = from[v][j * sa].im;
        }
      plan.template run<Inv, V>(in, out, buf + 2 * n);
      for (long long j = 0; j < n; ++j) {
        cplx<V> r = s == T(1) ? out[j] : scale(out[j], s);
        for (long long v = 0; v < count; ++v) to[v][j * sb] = {r.re[v], r.im[v]};
      }
    });
  }

  // The real lines of the last axis: R2C from real src to complex dst, or C2R back.
  void r2c_pass(const T* src, const Side& a, cplx<T>* dst, const Side& b, T s) const {
    const RealPlan<T>& plan = *axes.real;
    const int k = p.rank - 1;
    const long long n = plan.size(), h = plan.half();
    const size_t need = size_t(n) + size_t(h) + 1 + plan.scratch_size();
    for_lines<cplx<T>>(p.workers, line_count(b, p.rank, k, p.batch), need, [&](long long i, cplx<T>* buf) {
      const T* from = src + line_base(a, p.rank, k, i);
      cplx<T>* to = dst + line_base(b, p.rank, k, i);
      T* line = reinterpret_cast<T*>(buf);  // n reals in the first n complex slots
      cplx<T>* result = buf + n;
      for (long long j = 0; j < n; ++j) line[j] = from[j * a.stride[k]];
      plan.forward(line, result, buf + n + h + 1);
      for (long long j = 0; j < h; ++j) to[j * b.stride[k]] = s == T(1) ? result[j] : scale(result[j], s);
    });
  }

  void c2r_pass(const cplx<T>* src, const Side& a, T* dst, const Side& b, T s) const {
    const RealPlan<T>& plan = *axes.real;
    const int k = p.rank - 1;
    const long long n = plan.size(), h = plan.half();
    const size_t need = size_t(h) + size_t(n) + 1 + plan.scratch_size();
    for_lines<cplx<T>>(p.workers, line_count(b, p.rank, k, p.batch), need, [&](long long i, cplx<T>* buf) {
      const cplx<T>* from = src + line_base(a, p.rank, k, i);
      T* to = dst + line_base(b, p.rank, k, i);
      cplx<T>* line = buf;
      T* result = reinterpret_cast<T*>(buf + h);
      for (long long j = 0; j < h; ++j) line[j] = from[j * a.stride[k]];
      plan.backward(line, result, buf + h + n / 2 + 1);
      for (long long j = 0; j < n; ++j) to[j * b.stride[k]] = result[j] * s;
    });
  }

  void run(const void* in, void* out, bool inverse, bool in_place) const {
    const Side& a = in_place ? p.in_ip : p.in;
    const Side& b = in_place ? p.out_ip : p.out;
    const T s = T(p.scale);
    const int last = p.rank - 1;
    if (is_c2r(p.type)) return c2r(static_cast<const cplx<T>*>(in), a, static_cast<T*>(out), b, s);
    cplx<T>* o = static_cast<cplx<T>*>(out);
    const T first = last == 0 ? s : T(1);
    if (is_r2c(p.type)) {
      r2c_pass(static_cast<const T*>(in), a, o, b, first);
    } else if (inverse) {
      complex_pass<true>(last, static_cast<const cplx<T>*>(in), a, o, b, first);
    } else {
      complex_pass<false>(last, static_cast<const cplx<T>*>(in), a, o, b, first);
    }
    for (int k = last - 1; k >= 0; --k) {
      const T factor = k == 0 ? s : T(1);
      if (inverse)
        complex_pass<true>(k, o, b, o, b, factor);
      else
        complex_pass<false>(k, o, b, o, b, factor);
    }
  }

  void c2r(const cplx<T>* in, const Side& a, T* out, const Side& b, T s) const {
    if (p.rank == 1) return c2r_pass(in, a, out, b, s);
    Side dense;  // the half spectrum, batch after batch
    long long size = 1;
    for (int k = p.rank - 1; k >= 0; --k) {
      dense.lengths[k] = a.lengths[k];
      dense.stride[k] = size;
      size *= a.lengths[k];
    }
    dense.dist = size;
    std::vector<cplx<T>> temp(size_t(size * p.batch));
    const cplx<T>* src = in;
    const Side* from = &a;
    for (int k = p.rank - 2; k >= 0; --k) {
      complex_pass<true>(k, src, *from, temp.data(), dense, T(1));
      src = temp.data();
      from = &dense;
    }
    c2r_pass(temp.data(), dense, out, b, s);
  }
};

}  // namespace

void execute(const Plan& plan, const void* in, void* out, bool inverse) {
  const bool in_place = in == out;
  if (is_double(plan.type))
    Runner<double>{plan, plan.twice}.run(in, out, inverse, in_place);
  else
    Runner<float>{plan, plan.single}.run(in, out, inverse, in_place);
}

}  // namespace hkfft
