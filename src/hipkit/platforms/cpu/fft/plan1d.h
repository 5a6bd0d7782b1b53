// hipkit's CPU FFT engine: one contiguous 1-D complex transform of any length.
//
// The length is factored into radices 4, 2, 3, 5, 7 and other odd primes up to
// kMaxOddRadix; the transform is Stockham's self-sorting form (each stage reads one
// buffer and writes the other, no bit reversal), its twiddles computed once when the
// plan is made.  A length with a larger prime factor is Bluestein's: a chirp
// multiplication, a convolution by power-of-two transforms of at least 2n - 1 points
// (its kernel's spectrum precomputed), and a chirp again.
#pragma once

#include <memory>
#include <vector>

#include "butterflies.h"

namespace hkfft {

constexpr int kMaxOddRadix = 61;

template <typename T>
class Plan1D {
 public:
  explicit Plan1D(long long n) : n_(n) {
    long long rest = n;
    while (rest % 4 == 0) radices_.push_back(4), rest /= 4;
    while (rest % 2 == 0) radices_.push_back(2), rest /= 2;
    for (long long p = 3; p <= kMaxOddRadix && rest > 1; p += 2)
      while (rest % p == 0) radices_.push_back(int(p)), rest /= p;
    if (rest > 1) {  // a large prime factor: Bluestein
      radices_.clear();
      make_bluestein();
      return;
    }
    long long length = n;
    for (int r : radices_) {  // stage of length L = length, radix r, m = L / r
      offsets_.push_back(twiddles_.size());
      long long m = length / r;
      for (long long p = 0; p < m; ++p)
        for (int u = 1; u < r; ++u) twiddles_.push_back(root<T>(p * u, length));
      root_offsets_.push_back(roots_.size());
      if (r > 7)
        for (int k = 0; k < r; ++k) roots_.push_back(root<T>(k, r));
      length = m;
    }
  }

  long long size() const { return n_; }

  // Elements of scratch run() needs.
  size_t scratch_size() const {
    if (sub_) return size_t(3 * m_) + sub_->scratch_size();
    return size_t(n_) + size_t(kMaxOddRadix);
  }

  // out = DFT(in), contiguous, in != out; scratch of scratch_size() elements.  D is T,
  // or Lanes<T>::type for as many lines at once, each in its own lane.
  template <bool Inv, typename D = T>
  void run(const cplx<D>* in, cplx<D>* out, cplx<D>* scratch) const {
    if (sub_) return bluestein<Inv, D>(in, out, scratch);
    const size_t stages = radices_.size();
    if (stages == 0) {  // n == 1
      out[0] = in[0];
      return;
    }
    cplx<D>* temp = scratch + kMaxOddRadix;
    const cplx<D>* src = in;
    long long length = n_, stride = 1;
    for (size_t k = 0; k < stages; ++k) {
      cplx<D>* dst = ((stages - 1 - k) % 2 == 0) ? out : temp;
      stage<Inv, D>(k, src, dst, length, stride, scratch);
      int r = radices_[k];
      length /= r;
      stride *= r;
      src = dst;
    }
  }

 private:
  template <bool Inv, typename D>
  void stage(size_t k, const cplx<D>* x, cplx<D>* y, long long length, long long s,
             cplx<D>* t) const {
    const int r = radices_[k];
    const cplx<T>* tw = twiddles_.data() + offsets_[k];
    switch (r) {
      case 4: return radix<4, Inv, D>(x, y, length, s, tw, [](cplx<D>* a) { dft4<Inv>(a); });
      case 2: return radix<2, Inv, D>(x, y, length, s, tw, [](cplx<D>* a) { dft2<Inv>(a); });
      case 3: return radix<3, Inv, D>(x, y, length, s, tw, [](cplx<D>* a) { dft3<Inv>(a); });
      case 5: return radix<5, Inv, D>(x, y, length, s, tw, [](cplx<D>* a) { dft5<Inv>(a); });
      case 7: return radix<7, Inv, D>(x, y, length, s, tw, [](cplx<D>* a) { dft7<Inv>(a); });
      default: break;
    }
    const cplx<T>* w = roots_.data() + root_offsets_[k];
    cplx<D> a[kMaxOddRadix];
    const long long m = length / r;
    for (long long p = 0; p < m; ++p) {
      const cplx<T>* wp = tw + p * (r - 1);
      for (long long q = 0; q < s; ++q) {
        for (int j = 0; j < r; ++j) a[j] = x[q + s * (p + j * m)];
        dft_odd<Inv>(a, r, w, t);
        y[q + s * (r * p)] = a[0];
        for (int u = 1; u < r; ++u) y[q + s * (r * p + u)] = twiddle<Inv>(a[u], wp[u - 1]);
      }
    }
  }

  // One stage of radix R: for p < m = L / R and q < s, the R points
  // x[q + s (p + j m)] go through the DFT, twiddled by w_L^(p u), to y[q + s (R p + u)].
  template <int R, bool Inv, typename D, typename F>
  static void radix(const cplx<D>* x, cplx<D>* y, long long length, long long s,
                    const cplx<T>* tw, F dft) {
    const long long m = length / R;
    cplx<D> a[R];
    if (s == 1) {
      for (long long p = 0; p < m; ++p) {
        for (int j = 0; j < R; ++j) a[j] = x[p + j * m];
        dft(a);
        const cplx<T>* wp = tw + p * (R - 1);
        y[R * p] = a[0];
        for (int u = 1; u < R; ++u) y[R * p + u] = twiddle<Inv>(a[u], wp[u - 1]);
      }
      return;
    }
    for (long long p = 0; p < m; ++p) {
      const cplx<T>* wp = tw + p * (R - 1);
      cplx<T> w[R];
      for (int u = 1; u < R; ++u) w[u] = Inv ? conj(wp[u - 1]) : wp[u - 1];
      const cplx<D>* xp = x + s * p;
      cplx<D>* yp = y + s * R * p;
      for (long long q = 0; q < s; ++q) {
        for (int j = 0; j < R; ++j) a[j] = xp[q + j * s * m];
        dft(a);
        yp[q] = a[0];
        for (int u = 1; u < R; ++u) yp[q + s * u] = a[u] * w[u];
      }
    }
  }

  void make_bluestein() {
    m_ = 1;
    while (m_ < 2 * n_ - 1) m_ *= 2;
    sub_ = std::make_unique<Plan1D<T>>(m_);
    chirp_.resize(size_t(n_));
    for (long long k = 0; k < n_; ++k) chirp_[k] = root<T>((k * k) % (2 * n_), 2 * n_);
    std::vector<cplx<T>> b(size_t(m_), cplx<T>{0, 0}), work(sub_->scratch_size());
    for (int inv = 0; inv < 2; ++inv) {
      std::fill(b.begin(), b.end(), cplx<T>{0, 0});
      for (long long k = 0; k < n_; ++k) {
        cplx<T> c = inv ? chirp_[k] : conj(chirp_[k]);  // the conjugate of the chirp used
        b[k] = c;
        if (k) b[m_ - k] = c;
      }
      auto& spectrum = inv ? kernel_b_ : kernel_f_;
      spectrum.resize(size_t(m_));
      sub_->template run<false>(b.data(), spectrum.data(), work.data());
      const T norm = T(1) / T(m_);
      for (auto& v : spectrum) v = scale(v, norm);
    }
  }

  template <bool Inv, typename D>
  void bluestein(const cplx<D>* in, cplx<D>* out, cplx<D>* scratch) const {
    cplx<D>* a = scratch;
    cplx<D>* spectrum = scratch + m_;
    cplx<D>* work = scratch + 3 * m_;
    for (long long k = 0; k < n_; ++k) a[k] = twiddle<Inv>(in[k], chirp_[k]);
    for (long long k = n_; k < m_; ++k) a[k] = cplx<D>{};
    sub_->template run<false, D>(a, spectrum, work);
    const auto& kernel = Inv ? kernel_b_ : kernel_f_;
    for (long long k = 0; k < m_; ++k) spectrum[k] = spectrum[k] * kernel[k];
    cplx<D>* conv = scratch + 2 * m_;
    sub_->template run<true, D>(spectrum, conv, work);
    for (long long k = 0; k < n_; ++k) out[k] = twiddle<Inv>(conv[k], chirp_[k]);
  }

  long long n_;
  std::vector<int> radices_;
  std::vector<cplx<T>> twiddles_, roots_;
  std::vector<size_t> offsets_, root_offsets_;
  // Bluestein's: the power-of-two length, its plan, the chirp, the kernel's spectra
  // (forward and backward, divided by m).
  long long m_ = 0;
  std::unique_ptr<Plan1D<T>> sub_;
  std::vector<cplx<T>> chirp_, kernel_f_, kernel_b_;
};

}  // namespace hkfft
