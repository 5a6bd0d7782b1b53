// hipkit's CPU FFT engine: 1-D real transforms (R2C forward, C2R backward) of any
// length, through a complex transform of half the length where the length is even
// (the real row read as n / 2 complex numbers, then one pass untangling the halves),
// and of the full length where it is odd.
#pragma once

#include "plan1d.h"

namespace hkfft {

template <typename T>
class RealPlan {
 public:
  explicit RealPlan(long long n)
      : n_(n), even_(n % 2 == 0 && n > 1), complex_(even_ ? n / 2 : n) {
    if (even_)
      for (long long k = 0; k <= n / 2; ++k) roots_.push_back(root<T>(k, n));
  }

  long long size() const { return n_; }
  long long half() const { return n_ / 2 + 1; }
  size_t scratch_size() const { return 2 * size_t(complex_.size()) + complex_.scratch_size(); }

  // out[0 .. n/2] = the DFT of the real in[0 .. n-1] (contiguous).
  void forward(const T* in, cplx<T>* out, cplx<T>* scratch) const {
    const long long h = complex_.size();
    cplx<T>* z = scratch;
    cplx<T>* spectrum = scratch + h;
    cplx<T>* work = scratch + 2 * h;
    if (!even_) {
      for (long long k = 0; k < n_; ++k) z[k] = {in[k], T(0)};
      complex_.template run<false>(z, spectrum, work);
      for (long long k = 0; k < half(); ++k) out[k] = spectrum[k];
      return;
    }
    complex_.template run<false>(reinterpret_cast<const cplx<T>*>(in), spectrum, work);
    const T one_half = T(0.5);
    for (long long k = 0; k <= h; ++k) {
      cplx<T> zk = spectrum[k == h ? 0 : k], zc = conj(spectrum[k == 0 ? 0 : h - k]);
      cplx<T> e = scale(zk + zc, one_half);
      cplx<T> o = quarter<false>(scale(zk - zc, one_half));  // (zk - zc) / (2i)
      out[k] = e + o * roots_[k];
    }
  }

  // out[0 .. n-1] = the unnormalized backward DFT of the Hermitian in[0 .. n/2].
  void backward(const cplx<T>* in, T* out, cplx<T>* scratch) const {
    const long long h = complex_.size();
    cplx<T>* z = scratch;
    cplx<T>* result = scratch + h;
    cplx<T>* work = scratch + 2 * h;
    if (!even_) {
      for (long long k = 0; k < n_; ++k) z[k] = k < half() ? in[k] : conj(in[n_ - k]);
      complex_.template run<true>(z, result, work);
      for (long long k = 0; k < n_; ++k) out[k] = result[k].re;
      return;
    }
    for (long long k = 0; k < h; ++k) {
      cplx<T> xk = in[k], xc = conj(in[h - k]);
      cplx<T> odd = (xk - xc) * conj(roots_[k]);
      z[k] = (xk + xc) + quarter<true>(odd);  // 2E + i 2O
    }
    complex_.template run<true>(z, reinterpret_cast<cplx<T>*>(out), work);
  }

 private:
  long long n_;
  bool even_;
  Plan1D<T> complex_;
  std::vector<cplx<T>> roots_;  // e^(-2 pi i k / n), k <= n / 2
};

}  // namespace hkfft
