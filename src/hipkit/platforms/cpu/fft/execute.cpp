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

// Runs line(i, buffer) for each of `count` lines, on up to `workers` threads, each with
// a buffer of `elems` complex numbers of its own.
template <typename T, typename F>
void for_lines(int workers, long long count, size_t elems, F line) {
  const int threads = int(std::min<long long>(workers, count));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::vector<cplx<T>> buffer(elems);
#pragma omp for schedule(static)
    for (long long i = 0; i < count; ++i) line(i, buffer.data());
  }
}

template <typename T>
struct Runner {
  const Plan& p;
  const Axes<T>& axes;

  // A complex pass along axis k: src (side a) -> dst (side b), scaled by s.  Lines of
  // an axis other than the last are taken kBlock at a time, gathered and scattered
  // point by point across the block: neighbouring lines are neighbours in memory, so
  // each cache line brought in serves the whole block.
  template <bool Inv>
  void complex_pass(int k, const cplx<T>* src, const Side& a, cplx<T>* dst, const Side& b,
                    T s) const {
    constexpr long long kBlock = 8;
    const Plan1D<T>& plan = *axes.complex[k];
    const long long n = plan.size();
    const long long block = k == p.rank - 1 ? 1 : kBlock;
    const size_t need = size_t(2 * block * n) + plan.scratch_size();
    const long long sa = a.stride[k], sb = b.stride[k];
    const long long lines = line_count(b, p.rank, k, p.batch);
    const long long blocks = (lines + block - 1) / block;
    for_lines<T>(p.workers, blocks, need, [&](long long first, cplx<T>* buf) {
      const long long count = std::min(block, lines - first * block);
      const cplx<T>* from[kBlock];
      cplx<T>* to[kBlock];
      for (long long v = 0; v < count; ++v) {
        from[v] = src + line_base(a, p.rank, k, first * block + v);
        to[v] = dst + line_base(b, p.rank, k, first * block + v);
      }
      cplx<T>* lines_in = buf;
      cplx<T>* lines_out = buf + block * n;
      cplx<T>* scratch = buf + 2 * block * n;
      for (long long j = 0; j < n; ++j)
        for (long long v = 0; v < count; ++v) lines_in[v * n + j] = from[v][j * sa];
      for (long long v = 0; v < count; ++v)
        plan.template run<Inv>(lines_in + v * n, lines_out + v * n, scratch);
      if (s != T(1))
        for (long long i = 0; i < count * n; ++i) lines_out[i] = scale(lines_out[i], s);
      for (long long j = 0; j < n; ++j)
        for (long long v = 0; v < count; ++v) to[v][j * sb] = lines_out[v * n + j];
    });
  }

  // The real lines of the last axis: R2C from real src to complex dst, or C2R back.
  void r2c_pass(const T* src, const Side& a, cplx<T>* dst, const Side& b, T s) const {
    const RealPlan<T>& plan = *axes.real;
    const int k = p.rank - 1;
    const long long n = plan.size(), h = plan.half();
    const size_t need = size_t(n) + size_t(h) + 1 + plan.scratch_size();
    for_lines<T>(p.workers, line_count(b, p.rank, k, p.batch), need, [&](long long i, cplx<T>* buf) {
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
    for_lines<T>(p.workers, line_count(b, p.rank, k, p.batch), need, [&](long long i, cplx<T>* buf) {
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
