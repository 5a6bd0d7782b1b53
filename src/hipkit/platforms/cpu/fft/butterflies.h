// hipkit's CPU FFT engine: complex numbers and the DFTs of one radix (2, 3, 4, 5, 7 by
// their own formulas, any other odd radix by its matrix).  `Inv` is the sign of the
// exponent: false for the forward transform (e^-i), true for the backward (e^+i).
//
// The data's type is a real (float, double) or a vector of them (Lanes): with vectors
// each lane is another line of the same transform, the butterflies compute them all at
// once, and twiddles and constants stay scalars, broadcast.
#pragma once

#include <cmath>
#include <cstddef>

namespace hkfft {

template <typename T>
struct cplx {
  T re, im;
};

// Vectors of 32 bytes: 8 floats or 4 doubles, one line of a block each (GCC's vector
// types; -march picks the instructions).
typedef float float8 __attribute__((vector_size(32)));
typedef double double4 __attribute__((vector_size(32)));

template <typename T>
struct Scalar {
  using type = T;
};
template <>
struct Scalar<float8> {
  using type = float;
};
template <>
struct Scalar<double4> {
  using type = double;
};
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  using type = float8;
  static constexpr int count = 8;
};
template <>
struct Lanes<double> {
  using type = double4;
  static constexpr int count = 4;
};

template <typename T>
inline cplx<T> operator+(cplx<T> a, cplx<T> b) { return {a.re + b.re, a.im + b.im}; }
template <typename T>
inline cplx<T> operator-(cplx<T> a, cplx<T> b) { return {a.re - b.re, a.im - b.im}; }
template <typename A, typename B>
inline cplx<A> operator*(cplx<A> a, cplx<B> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename T>
inline cplx<T> scale(cplx<T> a, typename Scalar<T>::type s) { return {a.re * s, a.im * s}; }
template <typename T>
inline cplx<T> conj(cplx<T> a) { return {a.re, -a.im}; }
// a * (-i) forward, a * (+i) backward: the quarter turn of the transform's sign.
template <bool Inv, typename T>
inline cplx<T> quarter(cplx<T> a) { return Inv ? cplx<T>{-a.im, a.re} : cplx<T>{a.im, -a.re}; }
// a * w, w a forward twiddle taken conjugate for the backward transform.
template <bool Inv, typename T, typename W>
inline cplx<T> twiddle(cplx<T> a, cplx<W> w) { return a * (Inv ? conj(w) : w); }

// e^(-2 pi i k / n), computed in double (long double for double's tables).
template <typename T>
inline cplx<T> root(long long k, long long n) {
  long double a = -2.0L * 3.14159265358979323846264338327950288L * (long double)(k % n) / (long double)n;
  return {T(std::cos(a)), T(std::sin(a))};
}

template <bool Inv, typename T>
inline void dft2(cplx<T>* a) {
  cplx<T> t = a[0];
  a[0] = t + a[1];
  a[1] = t - a[1];
}

template <bool Inv, typename T>
inline void dft3(cplx<T>* a) {
  using S = typename Scalar<T>::type;
  const S c = S(-0.5), s = S(0.86602540378443864676);
  cplx<T> sum = a[1] + a[2], dif = a[1] - a[2];
  cplx<T> m = {a[0].re + c * sum.re, a[0].im + c * sum.im};
  cplx<T> r = quarter<Inv>(scale(dif, s));
  a[0] = a[0] + sum;
  a[1] = m + r;
  a[2] = m - r;
}

template <bool Inv, typename T>
inline void dft4(cplx<T>* a) {
  cplx<T> s02 = a[0] + a[2], d02 = a[0] - a[2], s13 = a[1] + a[3];
  cplx<T> d13 = quarter<Inv>(a[1] - a[3]);
  a[0] = s02 + s13;
  a[2] = s02 - s13;
  a[1] = d02 + d13;
  a[3] = d02 - d13;
}

template <bool Inv, typename T>
inline void dft5(cplx<T>* a) {
  using S = typename Scalar<T>::type;
  const S c1 = S(0.30901699437494742410), c2 = S(-0.80901699437494742410);
  const S s1 = S(0.95105651629515357212), s2 = S(0.58778525229247312917);
  cplx<T> s14 = a[1] + a[4], d14 = a[1] - a[4], s23 = a[2] + a[3], d23 = a[2] - a[3];
  cplx<T> m1 = {a[0].re + c1 * s14.re + c2 * s23.re, a[0].im + c1 * s14.im + c2 * s23.im};
  cplx<T> m2 = {a[0].re + c2 * s14.re + c1 * s23.re, a[0].im + c2 * s14.im + c1 * s23.im};
  cplx<T> r1 = quarter<Inv>(cplx<T>{s1 * d14.re + s2 * d23.re, s1 * d14.im + s2 * d23.im});
  cplx<T> r2 = quarter<Inv>(cplx<T>{s2 * d14.re - s1 * d23.re, s2 * d14.im - s1 * d23.im});
  a[0] = a[0] + s14 + s23;
  a[1] = m1 + r1;
  a[4] = m1 - r1;
  a[2] = m2 + r2;
  a[3] = m2 - r2;
}

template <bool Inv, typename T>
inline void dft7(cplx<T>* a) {
  using S = typename Scalar<T>::type;
  const S c1 = S(0.62348980185873353053), c2 = S(-0.22252093395631440429),
          c3 = S(-0.90096886790241912624);
  const S s1 = S(0.78183148246802980871), s2 = S(0.97492791218182360702),
          s3 = S(0.43388373911755812048);
  cplx<T> p1 = a[1] + a[6], q1 = a[1] - a[6], p2 = a[2] + a[5], q2 = a[2] - a[5];
  cplx<T> p3 = a[3] + a[4], q3 = a[3] - a[4];
  auto mix = [&](S x, S y, S z) {
    return cplx<T>{a[0].re + x * p1.re + y * p2.re + z * p3.re,
                   a[0].im + x * p1.im + y * p2.im + z * p3.im};
  };
  auto rot = [&](S x, S y, S z) {
    return quarter<Inv>(cplx<T>{x * q1.re + y * q2.re + z * q3.re, x * q1.im + y * q2.im + z * q3.im});
  };
  cplx<T> m1 = mix(c1, c2, c3), m2 = mix(c2, c3, c1), m3 = mix(c3, c1, c2);
  cplx<T> r1 = rot(s1, s2, s3), r2 = rot(s2, -s3, -s1), r3 = rot(s3, -s1, s2);
  a[0] = a[0] + p1 + p2 + p3;
  a[1] = m1 + r1;
  a[6] = m1 - r1;
  a[2] = m2 + r2;
  a[5] = m2 - r2;
  a[3] = m3 + r3;
  a[4] = m3 - r3;
}

// Any odd radix r by its DFT matrix; `w` holds e^(-2 pi i k / r) for k < r, `t` r values.
template <bool Inv, typename T>
inline void dft_odd(cplx<T>* a, int r, const cplx<typename Scalar<T>::type>* w, cplx<T>* t) {
  for (int u = 0; u < r; ++u) {
    cplx<T> s = a[0];
    int k = 0;
    for (int j = 1; j < r; ++j) {
      k += u;
      if (k >= r) k -= r;
      s = s + twiddle<Inv>(a[j], w[k]);
    }
    t[u] = s;
  }
  for (int u = 0; u < r; ++u) a[u] = t[u];
}

}  // namespace hkfft
